package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp_open_attr}, for {@code ibv_open_qp}. */
final class IbvQpOpenAttr {

    static final int IBV_QP_OPEN_ATTR_NUM = 1;
    static final int IBV_QP_OPEN_ATTR_XRCD = 1 << 1;
    static final int IBV_QP_OPEN_ATTR_CONTEXT = 1 << 2;
    static final int IBV_QP_OPEN_ATTR_TYPE = 1 << 3;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("comp_mask"),
            U32.withName("qp_num"),
            ADDRESS.withName("xrcd"),
            ADDRESS.withName("qp_context"),
            C_ENUM.withName("qp_type"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_qp_open_attr");

    static final Field.OfInt COMP_MASK = Field.ofInt(LAYOUT, "comp_mask");
    static final Field.OfInt QP_NUM = Field.ofInt(LAYOUT, "qp_num");
    static final Field.OfAddress XRCD = Field.ofAddress(LAYOUT, "xrcd");
    static final Field.OfInt QP_TYPE = Field.ofInt(LAYOUT, "qp_type");

    private IbvQpOpenAttr() {
    }
}
