package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.stream.Stream;

/**
 * {@code struct ibv_cq_ex}: a {@code struct ibv_cq} (the same members first, so {@code ibv_cq_ex_to_cq}
 * is a cast) followed by the current completion's status and id and the CQ's polling functions, one
 * pointer per {@code ibv_start_poll}, {@code ibv_wc_read_*}... A read function of a field the CQ was not
 * created to report is NULL.
 */
final class IbvCqEx {

    /* struct ibv_cq's members, flat as the header repeats them, then the extension. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(Stream.concat(IbvCq.LAYOUT.memberLayouts().stream(),
            Stream.of(
                U32.withName("comp_mask"),
                C_ENUM.withName("status"),
                U64.withName("wr_id"),
                ADDRESS.withName("start_poll"),
                ADDRESS.withName("next_poll"),
                ADDRESS.withName("end_poll"),
                ADDRESS.withName("read_opcode"),
                ADDRESS.withName("read_vendor_err"),
                ADDRESS.withName("read_byte_len"),
                ADDRESS.withName("read_imm_data"),
                ADDRESS.withName("read_qp_num"),
                ADDRESS.withName("read_src_qp"),
                ADDRESS.withName("read_wc_flags"),
                ADDRESS.withName("read_slid"),
                ADDRESS.withName("read_sl"),
                ADDRESS.withName("read_dlid_path_bits"),
                ADDRESS.withName("read_completion_ts"),
                ADDRESS.withName("read_cvlan"),
                ADDRESS.withName("read_flow_tag"),
                ADDRESS.withName("read_tm_info"),
                ADDRESS.withName("read_completion_wallclock_ns")))
            .toArray(MemoryLayout[]::new))
            .withName("ibv_cq_ex");

    static final Field.OfInt STATUS = Field.ofInt(LAYOUT, "status");
    static final Field.OfLong WR_ID = Field.ofLong(LAYOUT, "wr_id");
    static final Field.OfAddress START_POLL = Field.ofAddress(LAYOUT, "start_poll");
    static final Field.OfAddress NEXT_POLL = Field.ofAddress(LAYOUT, "next_poll");
    static final Field.OfAddress END_POLL = Field.ofAddress(LAYOUT, "end_poll");
    static final Field.OfAddress READ_OPCODE = Field.ofAddress(LAYOUT, "read_opcode");
    static final Field.OfAddress READ_VENDOR_ERR = Field.ofAddress(LAYOUT, "read_vendor_err");
    static final Field.OfAddress READ_BYTE_LEN = Field.ofAddress(LAYOUT, "read_byte_len");
    static final Field.OfAddress READ_IMM_DATA = Field.ofAddress(LAYOUT, "read_imm_data");
    static final Field.OfAddress READ_QP_NUM = Field.ofAddress(LAYOUT, "read_qp_num");
    static final Field.OfAddress READ_SRC_QP = Field.ofAddress(LAYOUT, "read_src_qp");
    static final Field.OfAddress READ_WC_FLAGS = Field.ofAddress(LAYOUT, "read_wc_flags");
    static final Field.OfAddress READ_SLID = Field.ofAddress(LAYOUT, "read_slid");
    static final Field.OfAddress READ_SL = Field.ofAddress(LAYOUT, "read_sl");
    static final Field.OfAddress READ_DLID_PATH_BITS = Field.ofAddress(LAYOUT, "read_dlid_path_bits");
    static final Field.OfAddress READ_COMPLETION_TS = Field.ofAddress(LAYOUT, "read_completion_ts");
    static final Field.OfAddress READ_COMPLETION_WALLCLOCK_NS = Field.ofAddress(LAYOUT,
            "read_completion_wallclock_ns");

    private IbvCqEx() {
    }
}
