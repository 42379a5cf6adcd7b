package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import io.rdmaverbs.verbs.attr.QpCapabilities;

/** {@code struct ibv_qp_cap}: requested on create, overwritten with what the device granted. */
final class IbvQpCap {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("max_send_wr"),
            U32.withName("max_recv_wr"),
            U32.withName("max_send_sge"),
            U32.withName("max_recv_sge"),
            U32.withName("max_inline_data"))
            .withName("ibv_qp_cap");

    static final Field.OfInt MAX_SEND_WR = Field.ofInt(LAYOUT, "max_send_wr");
    static final Field.OfInt MAX_RECV_WR = Field.ofInt(LAYOUT, "max_recv_wr");
    static final Field.OfInt MAX_SEND_SGE = Field.ofInt(LAYOUT, "max_send_sge");
    static final Field.OfInt MAX_RECV_SGE = Field.ofInt(LAYOUT, "max_recv_sge");
    static final Field.OfInt MAX_INLINE_DATA = Field.ofInt(LAYOUT, "max_inline_data");

    private IbvQpCap() {
    }

    static void write(MemorySegment segment, long base, QpCapabilities cap) {
        MAX_SEND_WR.set(segment, base, cap.maxSendWr());
        MAX_RECV_WR.set(segment, base, cap.maxRecvWr());
        MAX_SEND_SGE.set(segment, base, cap.maxSendSge());
        MAX_RECV_SGE.set(segment, base, cap.maxRecvSge());
        MAX_INLINE_DATA.set(segment, base, cap.maxInlineData());
    }

    /** Values above {@code Integer.MAX_VALUE} (never seen in practice) are clamped, the record wants ints. */
    static QpCapabilities read(MemorySegment segment, long base) {
        return new QpCapabilities(
                clamp(MAX_SEND_WR.get(segment, base)),
                clamp(MAX_RECV_WR.get(segment, base)),
                clamp(MAX_SEND_SGE.get(segment, base)),
                clamp(MAX_RECV_SGE.get(segment, base)),
                clamp(MAX_INLINE_DATA.get(segment, base)));
    }

    private static int clamp(int u32) {
        return u32 < 0 ? Integer.MAX_VALUE : u32;
    }
}
