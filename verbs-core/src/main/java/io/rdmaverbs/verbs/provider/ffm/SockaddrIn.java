package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.chars;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.nio.ByteOrder;

/** {@code struct sockaddr_in} of {@code <netinet/in.h>}: port and address in network byte order. */
final class SockaddrIn {

    /** {@code AF_INET}; the same on every Linux architecture. */
    static final short AF_INET = 2;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U16.withName("sin_family"),
            JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin_port"),
            MemoryLayout.structLayout(JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).withName("s_addr"))
                    .withName("sin_addr"),
            chars(8).withName("sin_zero"))
            .withName("sockaddr_in");

    static final Field.OfShort FAMILY = Field.ofShort(LAYOUT, "sin_family");
    static final Field.OfShort PORT = Field.ofShort(LAYOUT, "sin_port");
    static final long ADDR = Field.offset(LAYOUT, "sin_addr");

    private SockaddrIn() {
    }
}
