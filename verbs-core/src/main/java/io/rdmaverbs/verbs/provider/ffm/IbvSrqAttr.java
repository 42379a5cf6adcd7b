package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_srq_attr}: the sizes of a shared receive queue. */
final class IbvSrqAttr {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("max_wr"),
            U32.withName("max_sge"),
            U32.withName("srq_limit"))
            .withName("ibv_srq_attr");

    static final Field.OfInt MAX_WR = Field.ofInt(LAYOUT, "max_wr");
    static final Field.OfInt MAX_SGE = Field.ofInt(LAYOUT, "max_sge");
    static final Field.OfInt SRQ_LIMIT = Field.ofInt(LAYOUT, "srq_limit");

    private IbvSrqAttr() {
    }
}
