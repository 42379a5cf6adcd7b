package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.chars;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_srq_init_attr_ex}. Its first two fields are {@code struct ibv_srq_init_attr}, which
 * is why {@code ibv_create_srq_ex} may pass it to {@code ibv_create_srq} for a basic SRQ.
 */
final class IbvSrqInitAttrEx {

    static final int IBV_SRQ_INIT_ATTR_TYPE = 1;
    static final int IBV_SRQ_INIT_ATTR_PD = 1 << 1;
    static final int IBV_SRQ_INIT_ATTR_XRCD = 1 << 2;
    static final int IBV_SRQ_INIT_ATTR_CQ = 1 << 3;

    static final int IBV_SRQT_BASIC = 0;
    static final int IBV_SRQT_XRC = 1;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("srq_context"),
            IbvSrqAttr.LAYOUT.withName("attr"),
            U32.withName("comp_mask"),
            C_ENUM.withName("srq_type"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("pd"),
            ADDRESS.withName("xrcd"),
            ADDRESS.withName("cq"),
            chars(8).withName("tm_cap"))
            .withName("ibv_srq_init_attr_ex");

    static final long ATTR = Field.offset(LAYOUT, "attr");
    static final Field.OfInt COMP_MASK = Field.ofInt(LAYOUT, "comp_mask");
    static final Field.OfInt SRQ_TYPE = Field.ofInt(LAYOUT, "srq_type");
    static final Field.OfAddress PD = Field.ofAddress(LAYOUT, "pd");
    static final Field.OfAddress XRCD = Field.ofAddress(LAYOUT, "xrcd");
    static final Field.OfAddress CQ = Field.ofAddress(LAYOUT, "cq");

    private IbvSrqInitAttrEx() {
    }
}
