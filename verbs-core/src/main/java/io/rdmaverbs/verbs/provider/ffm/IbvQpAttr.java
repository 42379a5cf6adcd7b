package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;

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

    static final Field.OfInt QP_STATE = Field.ofInt(LAYOUT, "qp_state");
    static final Field.OfInt PATH_MTU = Field.ofInt(LAYOUT, "path_mtu");
    static final Field.OfInt QKEY = Field.ofInt(LAYOUT, "qkey");
    static final Field.OfInt RQ_PSN = Field.ofInt(LAYOUT, "rq_psn");
    static final Field.OfInt SQ_PSN = Field.ofInt(LAYOUT, "sq_psn");
    static final Field.OfInt DEST_QP_NUM = Field.ofInt(LAYOUT, "dest_qp_num");
    static final Field.OfInt QP_ACCESS_FLAGS = Field.ofInt(LAYOUT, "qp_access_flags");
    static final long CAP = Field.offset(LAYOUT, "cap");
    static final long AH_ATTR = Field.offset(LAYOUT, "ah_attr");
    static final Field.OfShort PKEY_INDEX = Field.ofShort(LAYOUT, "pkey_index");
    static final Field.OfByte MAX_RD_ATOMIC = Field.ofByte(LAYOUT, "max_rd_atomic");
    static final Field.OfByte MAX_DEST_RD_ATOMIC = Field.ofByte(LAYOUT, "max_dest_rd_atomic");
    static final Field.OfByte MIN_RNR_TIMER = Field.ofByte(LAYOUT, "min_rnr_timer");
    static final Field.OfByte PORT_NUM = Field.ofByte(LAYOUT, "port_num");
    static final Field.OfByte TIMEOUT = Field.ofByte(LAYOUT, "timeout");
    static final Field.OfByte RETRY_CNT = Field.ofByte(LAYOUT, "retry_cnt");
    static final Field.OfByte RNR_RETRY = Field.ofByte(LAYOUT, "rnr_retry");

    private IbvQpAttr() {
    }
}
