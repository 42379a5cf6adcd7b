package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.BE32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;

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
    static final Field.OfLong WR_ID = Field.ofLong(LAYOUT, "wr_id");
    static final Field.OfInt STATUS = Field.ofInt(LAYOUT, "status");
    static final Field.OfInt OPCODE = Field.ofInt(LAYOUT, "opcode");
    static final Field.OfInt VENDOR_ERR = Field.ofInt(LAYOUT, "vendor_err");
    static final Field.OfInt BYTE_LEN = Field.ofInt(LAYOUT, "byte_len");
    static final Field.OfInt IMM_DATA = Field.ofInt(LAYOUT, "imm_data");
    static final Field.OfInt QP_NUM = Field.ofInt(LAYOUT, "qp_num");
    static final Field.OfInt SRC_QP = Field.ofInt(LAYOUT, "src_qp");
    static final Field.OfInt WC_FLAGS = Field.ofInt(LAYOUT, "wc_flags");
    static final Field.OfShort PKEY_INDEX = Field.ofShort(LAYOUT, "pkey_index");
    static final Field.OfShort SLID = Field.ofShort(LAYOUT, "slid");

    private IbvWc() {
    }
}
