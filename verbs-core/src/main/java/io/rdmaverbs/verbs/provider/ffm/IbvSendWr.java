package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.BE32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_send_wr}. The {@code wr} union holds the RDMA, atomic or UD destination; the
 * trailing anonymous union ({@code bind_mw} / {@code tso}) is not used and stays padding. {@code next}
 * is NULL for a single request and links the slots of a {@link NativeWrChain}.
 */
final class IbvSendWr {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            C_INT.withName("num_sge"),
            C_ENUM.withName("opcode"),
            U32.withName("send_flags"),
            BE32.withName("imm_data"),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            U64.withName("remote_addr"),
                            U32.withName("rkey"),
                            MemoryLayout.paddingLayout(4)).withName("rdma"),
                    MemoryLayout.structLayout(
                            U64.withName("remote_addr"),
                            U64.withName("compare_add"),
                            U64.withName("swap"),
                            U32.withName("rkey"),
                            MemoryLayout.paddingLayout(4)).withName("atomic"),
                    MemoryLayout.structLayout(
                            ADDRESS.withName("ah"),
                            U32.withName("remote_qpn"),
                            U32.withName("remote_qkey")).withName("ud"))
                    .withName("wr"),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            U32.withName("remote_srqn")).withName("xrc"))
                    .withName("qp_type"),
            MemoryLayout.paddingLayout(4),
            /* the anonymous union of bind_mw and tso */
            MemoryLayout.paddingLayout(48))
            .withName("ibv_send_wr");

    static final long SIZE = LAYOUT.byteSize();
    static final Field.OfLong WR_ID = Field.ofLong(LAYOUT, "wr_id");
    static final Field.OfAddress NEXT = Field.ofAddress(LAYOUT, "next");
    static final Field.OfAddress SG_LIST = Field.ofAddress(LAYOUT, "sg_list");
    static final Field.OfInt NUM_SGE = Field.ofInt(LAYOUT, "num_sge");
    static final Field.OfInt OPCODE = Field.ofInt(LAYOUT, "opcode");
    static final Field.OfInt SEND_FLAGS = Field.ofInt(LAYOUT, "send_flags");
    static final Field.OfInt IMM_DATA = Field.ofInt(LAYOUT, "imm_data");
    static final Field.OfLong RDMA_REMOTE_ADDR = Field.ofLong(LAYOUT, "wr", "rdma", "remote_addr");
    static final Field.OfInt RDMA_RKEY = Field.ofInt(LAYOUT, "wr", "rdma", "rkey");
    static final Field.OfLong ATOMIC_REMOTE_ADDR = Field.ofLong(LAYOUT, "wr", "atomic", "remote_addr");
    static final Field.OfLong ATOMIC_COMPARE_ADD = Field.ofLong(LAYOUT, "wr", "atomic", "compare_add");
    static final Field.OfLong ATOMIC_SWAP = Field.ofLong(LAYOUT, "wr", "atomic", "swap");
    static final Field.OfInt ATOMIC_RKEY = Field.ofInt(LAYOUT, "wr", "atomic", "rkey");
    static final Field.OfAddress UD_AH = Field.ofAddress(LAYOUT, "wr", "ud", "ah");
    static final Field.OfInt UD_REMOTE_QPN = Field.ofInt(LAYOUT, "wr", "ud", "remote_qpn");
    static final Field.OfInt UD_REMOTE_QKEY = Field.ofInt(LAYOUT, "wr", "ud", "remote_qkey");
    static final Field.OfInt XRC_REMOTE_SRQN = Field.ofInt(LAYOUT, "qp_type", "xrc", "remote_srqn");

    private IbvSendWr() {
    }
}
