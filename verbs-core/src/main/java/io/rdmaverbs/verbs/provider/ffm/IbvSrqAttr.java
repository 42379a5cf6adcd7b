package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.offset;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_srq_attr}: the sizes of a shared receive queue. */
final class IbvSrqAttr {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("max_wr"),
            U32.withName("max_sge"),
            U32.withName("srq_limit"))
            .withName("ibv_srq_attr");

    static final long MAX_WR = offset(LAYOUT, "max_wr");
    static final long MAX_SGE = offset(LAYOUT, "max_sge");
    static final long SRQ_LIMIT = offset(LAYOUT, "srq_limit");

    private IbvSrqAttr() {
    }
}
