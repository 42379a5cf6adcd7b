package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.chars;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_qp_init_attr_ex}. Its first fields are exactly {@code struct ibv_qp_init_attr},
 * which is why {@code ibv_create_qp_ex} may pass it to {@code ibv_create_qp} and
 * {@code ibv_query_qp} may fill it.
 */
final class IbvQpInitAttrEx {

    static final int IBV_QP_INIT_ATTR_PD = 1;
    static final int IBV_QP_INIT_ATTR_XRCD = 1 << 1;
    static final int IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            IbvQpCap.LAYOUT.withName("cap"),
            C_ENUM.withName("qp_type"),
            C_INT.withName("sq_sig_all"),
            U32.withName("comp_mask"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("xrcd"),
            U32.withName("create_flags"),
            U16.withName("max_tso_header"),
            MemoryLayout.paddingLayout(2),
            ADDRESS.withName("rwq_ind_tbl"),
            chars(24).withName("rx_hash_conf"),
            U32.withName("source_qpn"),
            MemoryLayout.paddingLayout(4),
            U64.withName("send_ops_flags"))
            .withName("ibv_qp_init_attr_ex");

    static final Field.OfAddress SEND_CQ = Field.ofAddress(LAYOUT, "send_cq");
    static final Field.OfAddress RECV_CQ = Field.ofAddress(LAYOUT, "recv_cq");
    static final Field.OfAddress SRQ = Field.ofAddress(LAYOUT, "srq");
    static final long CAP = Field.offset(LAYOUT, "cap");
    static final Field.OfInt QP_TYPE = Field.ofInt(LAYOUT, "qp_type");
    static final Field.OfInt SQ_SIG_ALL = Field.ofInt(LAYOUT, "sq_sig_all");
    static final Field.OfInt COMP_MASK = Field.ofInt(LAYOUT, "comp_mask");
    static final Field.OfAddress PD = Field.ofAddress(LAYOUT, "pd");
    static final Field.OfAddress XRCD = Field.ofAddress(LAYOUT, "xrcd");
    static final Field.OfLong SEND_OPS_FLAGS = Field.ofLong(LAYOUT, "send_ops_flags");

    private IbvQpInitAttrEx() {
    }
}
