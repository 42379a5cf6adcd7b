package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct sockaddr_storage}: room for any address family, aligned for any of them. librdmacm
 * takes a bare {@code struct sockaddr *} and reads as many bytes as the family says, so every address
 * handed to it is encoded into one of these.
 */
final class SockaddrStorage {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U16.withName("ss_family"),
            MemoryLayout.paddingLayout(126))
            .withByteAlignment(8)
            .withName("sockaddr_storage");

    static final Field.OfShort FAMILY = Field.ofShort(LAYOUT, "ss_family");

    private SockaddrStorage() {
    }
}
