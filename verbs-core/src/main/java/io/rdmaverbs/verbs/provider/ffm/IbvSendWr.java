package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.BE32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_send_wr}. The {@code wr} union holds the RDMA, atomic or UD destination; the
 * trailing anonymous union ({@code bind_mw} / {@code tso}) is not used and stays padding. {@code next}
 * is always NULL: one request is posted at a time.
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
    static final long WR_ID = offset(LAYOUT, "wr_id");
    static final long SG_LIST = offset(LAYOUT, "sg_list");
    static final long NUM_SGE = offset(LAYOUT, "num_sge");
    static final long OPCODE = offset(LAYOUT, "opcode");
    static final long SEND_FLAGS = offset(LAYOUT, "send_flags");
    static final long IMM_DATA = offset(LAYOUT, "imm_data");
    static final long RDMA_REMOTE_ADDR = offset(LAYOUT, "wr", "rdma", "remote_addr");
    static final long RDMA_RKEY = offset(LAYOUT, "wr", "rdma", "rkey");
    static final long ATOMIC_REMOTE_ADDR = offset(LAYOUT, "wr", "atomic", "remote_addr");
    static final long ATOMIC_COMPARE_ADD = offset(LAYOUT, "wr", "atomic", "compare_add");
    static final long ATOMIC_SWAP = offset(LAYOUT, "wr", "atomic", "swap");
    static final long ATOMIC_RKEY = offset(LAYOUT, "wr", "atomic", "rkey");
    static final long UD_AH = offset(LAYOUT, "wr", "ud", "ah");
    static final long UD_REMOTE_QPN = offset(LAYOUT, "wr", "ud", "remote_qpn");
    static final long UD_REMOTE_QKEY = offset(LAYOUT, "wr", "ud", "remote_qkey");
    static final long XRC_REMOTE_SRQN = offset(LAYOUT, "qp_type", "xrc", "remote_srqn");

    private IbvSendWr() {
    }
}
