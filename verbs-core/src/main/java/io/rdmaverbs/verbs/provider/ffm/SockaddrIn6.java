package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.chars;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.nio.ByteOrder;

/**
 * {@code struct sockaddr_in6} of {@code <netinet/in.h>}. The scope id is an interface index in host
 * order (what {@code if_nametoindex(3)} returns), which is what makes a link-local {@code fe80::}
 * address usable: without it the kernel cannot tell which link is meant.
 */
final class SockaddrIn6 {

    /** {@code AF_INET6}; the same on every Linux architecture. */
    static final short AF_INET6 = 10;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U16.withName("sin6_family"),
            JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin6_port"),
            JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin6_flowinfo"),
            chars(16).withName("sin6_addr"),
            U32.withName("sin6_scope_id"))
            .withName("sockaddr_in6");

    static final Field.OfShort FAMILY = Field.ofShort(LAYOUT, "sin6_family");
    static final Field.OfShort PORT = Field.ofShort(LAYOUT, "sin6_port");
    static final Field.OfInt FLOWINFO = Field.ofInt(LAYOUT, "sin6_flowinfo");
    static final long ADDR = Field.offset(LAYOUT, "sin6_addr");
    static final Field.OfInt SCOPE_ID = Field.ofInt(LAYOUT, "sin6_scope_id");

    private SockaddrIn6() {
    }
}
