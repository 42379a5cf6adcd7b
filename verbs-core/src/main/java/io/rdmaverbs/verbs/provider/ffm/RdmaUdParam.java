package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_ud_param}: what an {@code RDMA_PS_UDP} id's {@code ESTABLISHED} event carries in
 * {@code param.ud}: the address handle attributes, QP number and Q_Key to send to the peer with.
 */
final class RdmaUdParam {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("private_data"),
            U8.withName("private_data_len"),
            MemoryLayout.paddingLayout(7),
            IbvAhAttr.LAYOUT.withName("ah_attr"),
            U32.withName("qp_num"),
            U32.withName("qkey"))
            .withName("rdma_ud_param");

    static final Field.OfAddress PRIVATE_DATA = Field.ofAddress(LAYOUT, "private_data");
    static final Field.OfByte PRIVATE_DATA_LEN = Field.ofByte(LAYOUT, "private_data_len");
    static final long AH_ATTR = Field.offset(LAYOUT, "ah_attr");
    static final Field.OfInt QP_NUM = Field.ofInt(LAYOUT, "qp_num");
    static final Field.OfInt QKEY = Field.ofInt(LAYOUT, "qkey");

    private RdmaUdParam() {
    }
}
