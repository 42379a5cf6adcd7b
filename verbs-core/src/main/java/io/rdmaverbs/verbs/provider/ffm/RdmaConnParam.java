package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_conn_param}: what {@code rdma_connect(3)} and {@code rdma_accept(3)} send, and
 * what a {@code CONNECT_REQUEST} or {@code ESTABLISHED} event carries in {@code param.conn}. The
 * members after {@code rnr_retry_count} are ignored when the id has a QP.
 */
final class RdmaConnParam {

    /** The largest {@code responder_resources} and {@code initiator_depth} the CM negotiates. */
    static final int RDMA_MAX_RESP_RES = 0xFF;
    static final int RDMA_MAX_INIT_DEPTH = 0xFF;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("private_data"),
            U8.withName("private_data_len"),
            U8.withName("responder_resources"),
            U8.withName("initiator_depth"),
            U8.withName("flow_control"),
            U8.withName("retry_count"),
            U8.withName("rnr_retry_count"),
            U8.withName("srq"),
            MemoryLayout.paddingLayout(1),
            U32.withName("qp_num"),
            MemoryLayout.paddingLayout(4))
            .withName("rdma_conn_param");

    static final Field.OfAddress PRIVATE_DATA = Field.ofAddress(LAYOUT, "private_data");
    static final Field.OfByte PRIVATE_DATA_LEN = Field.ofByte(LAYOUT, "private_data_len");
    static final Field.OfByte RESPONDER_RESOURCES = Field.ofByte(LAYOUT, "responder_resources");
    static final Field.OfByte INITIATOR_DEPTH = Field.ofByte(LAYOUT, "initiator_depth");
    static final Field.OfByte FLOW_CONTROL = Field.ofByte(LAYOUT, "flow_control");
    static final Field.OfByte RETRY_COUNT = Field.ofByte(LAYOUT, "retry_count");
    static final Field.OfByte RNR_RETRY_COUNT = Field.ofByte(LAYOUT, "rnr_retry_count");
    static final Field.OfByte SRQ = Field.ofByte(LAYOUT, "srq");
    static final Field.OfInt QP_NUM = Field.ofInt(LAYOUT, "qp_num");

    private RdmaConnParam() {
    }
}
