package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_qp_ex}: the {@code struct ibv_qp} it extends, the id and flags of the next work
 * request, and the new post API's function pointers ({@code ibv_wr_post(3)}). A builder of an operation
 * the QP was not created for is NULL.
 */
final class IbvQpEx {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            IbvQp.LAYOUT.withName("qp_base"),
            U64.withName("comp_mask"),
            U64.withName("wr_id"),
            U32.withName("wr_flags"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("wr_atomic_cmp_swp"),
            ADDRESS.withName("wr_atomic_fetch_add"),
            ADDRESS.withName("wr_bind_mw"),
            ADDRESS.withName("wr_local_inv"),
            ADDRESS.withName("wr_rdma_read"),
            ADDRESS.withName("wr_rdma_write"),
            ADDRESS.withName("wr_rdma_write_imm"),
            ADDRESS.withName("wr_send"),
            ADDRESS.withName("wr_send_imm"),
            ADDRESS.withName("wr_send_inv"),
            ADDRESS.withName("wr_send_tso"),
            ADDRESS.withName("wr_set_ud_addr"),
            ADDRESS.withName("wr_set_xrc_srqn"),
            ADDRESS.withName("wr_set_inline_data"),
            ADDRESS.withName("wr_set_inline_data_list"),
            ADDRESS.withName("wr_set_sge"),
            ADDRESS.withName("wr_set_sge_list"),
            ADDRESS.withName("wr_start"),
            ADDRESS.withName("wr_complete"),
            ADDRESS.withName("wr_abort"),
            ADDRESS.withName("wr_atomic_write"))
            .withName("ibv_qp_ex");

    static final Field.OfLong WR_ID = Field.ofLong(LAYOUT, "wr_id");
    static final Field.OfInt WR_FLAGS = Field.ofInt(LAYOUT, "wr_flags");
    static final Field.OfAddress WR_ATOMIC_CMP_SWP = Field.ofAddress(LAYOUT, "wr_atomic_cmp_swp");
    static final Field.OfAddress WR_ATOMIC_FETCH_ADD = Field.ofAddress(LAYOUT, "wr_atomic_fetch_add");
    static final Field.OfAddress WR_RDMA_READ = Field.ofAddress(LAYOUT, "wr_rdma_read");
    static final Field.OfAddress WR_RDMA_WRITE = Field.ofAddress(LAYOUT, "wr_rdma_write");
    static final Field.OfAddress WR_RDMA_WRITE_IMM = Field.ofAddress(LAYOUT, "wr_rdma_write_imm");
    static final Field.OfAddress WR_SEND = Field.ofAddress(LAYOUT, "wr_send");
    static final Field.OfAddress WR_SEND_IMM = Field.ofAddress(LAYOUT, "wr_send_imm");
    static final Field.OfAddress WR_SET_UD_ADDR = Field.ofAddress(LAYOUT, "wr_set_ud_addr");
    static final Field.OfAddress WR_SET_XRC_SRQN = Field.ofAddress(LAYOUT, "wr_set_xrc_srqn");
    static final Field.OfAddress WR_SET_INLINE_DATA = Field.ofAddress(LAYOUT, "wr_set_inline_data");
    static final Field.OfAddress WR_SET_SGE = Field.ofAddress(LAYOUT, "wr_set_sge");
    static final Field.OfAddress WR_SET_SGE_LIST = Field.ofAddress(LAYOUT, "wr_set_sge_list");
    static final Field.OfAddress WR_START = Field.ofAddress(LAYOUT, "wr_start");
    static final Field.OfAddress WR_COMPLETE = Field.ofAddress(LAYOUT, "wr_complete");
    static final Field.OfAddress WR_ABORT = Field.ofAddress(LAYOUT, "wr_abort");

    private IbvQpEx() {
    }
}
