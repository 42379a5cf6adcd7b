package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.offset;

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

    static final long MAX_SEND_WR = offset(LAYOUT, "max_send_wr");
    static final long MAX_RECV_WR = offset(LAYOUT, "max_recv_wr");
    static final long MAX_SEND_SGE = offset(LAYOUT, "max_send_sge");
    static final long MAX_RECV_SGE = offset(LAYOUT, "max_recv_sge");
    static final long MAX_INLINE_DATA = offset(LAYOUT, "max_inline_data");

    private IbvQpCap() {
    }

    static void write(MemorySegment segment, long base, QpCapabilities cap) {
        segment.set(U32, base + MAX_SEND_WR, cap.maxSendWr());
        segment.set(U32, base + MAX_RECV_WR, cap.maxRecvWr());
        segment.set(U32, base + MAX_SEND_SGE, cap.maxSendSge());
        segment.set(U32, base + MAX_RECV_SGE, cap.maxRecvSge());
        segment.set(U32, base + MAX_INLINE_DATA, cap.maxInlineData());
    }

    /** Values above {@code Integer.MAX_VALUE} (never seen in practice) are clamped, the record wants ints. */
    static QpCapabilities read(MemorySegment segment, long base) {
        return new QpCapabilities(
                clamp(segment.get(U32, base + MAX_SEND_WR)),
                clamp(segment.get(U32, base + MAX_RECV_WR)),
                clamp(segment.get(U32, base + MAX_SEND_SGE)),
                clamp(segment.get(U32, base + MAX_RECV_SGE)),
                clamp(segment.get(U32, base + MAX_INLINE_DATA)));
    }

    private static int clamp(int u32) {
        return u32 < 0 ? Integer.MAX_VALUE : u32;
    }
}
