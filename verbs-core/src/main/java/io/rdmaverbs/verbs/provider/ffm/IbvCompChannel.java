package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_comp_channel}. */
final class IbvCompChannel {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            C_INT.withName("fd"),
            C_INT.withName("refcnt"))
            .withName("ibv_comp_channel");

    static final Field.OfInt FD = Field.ofInt(LAYOUT, "fd");

    private IbvCompChannel() {
    }
}
