package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_sge}: one scatter/gather entry. */
final class IbvSge {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("addr"),
            U32.withName("length"),
            U32.withName("lkey"))
            .withName("ibv_sge");

    static final long SIZE = LAYOUT.byteSize();
    static final Field.OfLong ADDR = Field.ofLong(LAYOUT, "addr");
    static final Field.OfInt LENGTH = Field.ofInt(LAYOUT, "length");
    static final Field.OfInt LKEY = Field.ofInt(LAYOUT, "lkey");

    private IbvSge() {
    }
}
