package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.BE32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.offset;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_wc}. {@code imm_data} shares an anonymous union with {@code invalidated_rkey};
 * only the former is read, through the big-endian layout, since it travels in network order.
 */
final class IbvWc {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("wr_id"),
            C_ENUM.withName("status"),
            C_ENUM.withName("opcode"),
            U32.withName("vendor_err"),
            U32.withName("byte_len"),
            BE32.withName("imm_data"),
            U32.withName("qp_num"),
            U32.withName("src_qp"),
            U32.withName("wc_flags"),
            U16.withName("pkey_index"),
            U16.withName("slid"),
            U8.withName("sl"),
            U8.withName("dlid_path_bits"),
            MemoryLayout.paddingLayout(2))
            .withName("ibv_wc");

    static final long SIZE = LAYOUT.byteSize();
    static final long WR_ID = offset(LAYOUT, "wr_id");
    static final long STATUS = offset(LAYOUT, "status");
    static final long OPCODE = offset(LAYOUT, "opcode");
    static final long VENDOR_ERR = offset(LAYOUT, "vendor_err");
    static final long BYTE_LEN = offset(LAYOUT, "byte_len");
    static final long IMM_DATA = offset(LAYOUT, "imm_data");
    static final long QP_NUM = offset(LAYOUT, "qp_num");
    static final long SRC_QP = offset(LAYOUT, "src_qp");
    static final long WC_FLAGS = offset(LAYOUT, "wc_flags");
    static final long PKEY_INDEX = offset(LAYOUT, "pkey_index");
    static final long SLID = offset(LAYOUT, "slid");

    private IbvWc() {
    }
}
