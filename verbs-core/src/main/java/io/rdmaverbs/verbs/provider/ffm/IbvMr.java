package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.SIZE_T;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_mr}. */
final class IbvMr {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("addr"),
            SIZE_T.withName("length"),
            U32.withName("handle"),
            U32.withName("lkey"),
            U32.withName("rkey"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_mr");

    static final Field.OfAddress ADDR = Field.ofAddress(LAYOUT, "addr");
    static final Field.OfLong LENGTH = Field.ofLong(LAYOUT, "length");
    static final Field.OfInt LKEY = Field.ofInt(LAYOUT, "lkey");
    static final Field.OfInt RKEY = Field.ofInt(LAYOUT, "rkey");

    private IbvMr() {
    }
}
