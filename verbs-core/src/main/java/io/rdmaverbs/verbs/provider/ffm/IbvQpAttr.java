package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.offset;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp_attr}, for {@code ibv_modify_qp} and {@code ibv_query_qp}. */
final class IbvQpAttr {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            C_ENUM.withName("qp_state"),
            C_ENUM.withName("cur_qp_state"),
            C_ENUM.withName("path_mtu"),
            C_ENUM.withName("path_mig_state"),
            U32.withName("qkey"),
            U32.withName("rq_psn"),
            U32.withName("sq_psn"),
            U32.withName("dest_qp_num"),
            U32.withName("qp_access_flags"),
            IbvQpCap.LAYOUT.withName("cap"),
            IbvAhAttr.LAYOUT.withName("ah_attr"),
            IbvAhAttr.LAYOUT.withName("alt_ah_attr"),
            U16.withName("pkey_index"),
            U16.withName("alt_pkey_index"),
            U8.withName("en_sqd_async_notify"),
            U8.withName("sq_draining"),
            U8.withName("max_rd_atomic"),
            U8.withName("max_dest_rd_atomic"),
            U8.withName("min_rnr_timer"),
            U8.withName("port_num"),
            U8.withName("timeout"),
            U8.withName("retry_cnt"),
            U8.withName("rnr_retry"),
            U8.withName("alt_port_num"),
            U8.withName("alt_timeout"),
            MemoryLayout.paddingLayout(1),
            U32.withName("rate_limit"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_qp_attr");

    static final long QP_STATE = offset(LAYOUT, "qp_state");
    static final long PATH_MTU = offset(LAYOUT, "path_mtu");
    static final long QKEY = offset(LAYOUT, "qkey");
    static final long RQ_PSN = offset(LAYOUT, "rq_psn");
    static final long SQ_PSN = offset(LAYOUT, "sq_psn");
    static final long DEST_QP_NUM = offset(LAYOUT, "dest_qp_num");
    static final long QP_ACCESS_FLAGS = offset(LAYOUT, "qp_access_flags");
    static final long CAP = offset(LAYOUT, "cap");
    static final long AH_ATTR = offset(LAYOUT, "ah_attr");
    static final long PKEY_INDEX = offset(LAYOUT, "pkey_index");
    static final long MAX_RD_ATOMIC = offset(LAYOUT, "max_rd_atomic");
    static final long MAX_DEST_RD_ATOMIC = offset(LAYOUT, "max_dest_rd_atomic");
    static final long MIN_RNR_TIMER = offset(LAYOUT, "min_rnr_timer");
    static final long PORT_NUM = offset(LAYOUT, "port_num");
    static final long TIMEOUT = offset(LAYOUT, "timeout");
    static final long RETRY_CNT = offset(LAYOUT, "retry_cnt");
    static final long RNR_RETRY = offset(LAYOUT, "rnr_retry");

    private IbvQpAttr() {
    }
}
