package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct pollfd} of {@code <poll.h>}, for waiting on a completion channel or async fd. */
final class PollFd {

    static final short POLLIN = 0x001;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            C_INT.withName("fd"),
            JAVA_SHORT.withName("events"),
            JAVA_SHORT.withName("revents"))
            .withName("pollfd");

    static final Field.OfInt FD = Field.ofInt(LAYOUT, "fd");
    static final Field.OfShort EVENTS = Field.ofShort(LAYOUT, "events");
    static final Field.OfShort REVENTS = Field.ofShort(LAYOUT, "revents");

    private PollFd() {
    }
}
