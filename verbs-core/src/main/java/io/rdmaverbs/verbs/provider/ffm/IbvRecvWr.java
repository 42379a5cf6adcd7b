package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_recv_wr}. */
final class IbvRecvWr {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            C_INT.withName("num_sge"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_recv_wr");

    static final long SIZE = LAYOUT.byteSize();
    static final Field.OfLong WR_ID = Field.ofLong(LAYOUT, "wr_id");
    static final Field.OfAddress NEXT = Field.ofAddress(LAYOUT, "next");
    static final Field.OfAddress SG_LIST = Field.ofAddress(LAYOUT, "sg_list");
    static final Field.OfInt NUM_SGE = Field.ofInt(LAYOUT, "num_sge");

    private IbvRecvWr() {
    }
}
