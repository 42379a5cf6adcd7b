package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.BE32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.WorkCompletions;

/**
 * {@code struct ibv_wc[capacity]} in off-heap memory of its own, which {@code poll_cq} writes and the
 * accessors read in place: polling allocates nothing. A shared arena, because the buffer may be
 * made on one thread and polled on another; closing it while a poll is in progress fails rather
 * than freeing memory the device's library is writing.
 */
final class NativeWorkCompletions implements WorkCompletions {

    private final Arena arena = Arena.ofShared();
    private final int capacity;
    private final MemorySegment entries;

    NativeWorkCompletions(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
        this.entries = arena.allocate(MemoryLayout.sequenceLayout(capacity, IbvWc.LAYOUT));
    }

    /** The array {@code ibv_poll_cq} fills. */
    MemorySegment entries() {
        return entries;
    }

    boolean isClosed() {
        return !arena.scope().isAlive();
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public long wrId(int index) {
        return entries.get(U64, at(index) + IbvWc.WR_ID);
    }

    @Override
    public int statusCode(int index) {
        return entries.get(C_ENUM, at(index) + IbvWc.STATUS);
    }

    @Override
    public int opcodeCode(int index) {
        return entries.get(C_ENUM, at(index) + IbvWc.OPCODE);
    }

    @Override
    public int vendorError(int index) {
        return entries.get(U32, at(index) + IbvWc.VENDOR_ERR);
    }

    @Override
    public int byteLength(int index) {
        return entries.get(U32, at(index) + IbvWc.BYTE_LEN);
    }

    /** {@code ntohl(wc.imm_data)}: the big-endian layout does the conversion. */
    @Override
    public int immediateData(int index) {
        return entries.get(BE32, at(index) + IbvWc.IMM_DATA);
    }

    @Override
    public int qpNum(int index) {
        return entries.get(U32, at(index) + IbvWc.QP_NUM);
    }

    @Override
    public int sourceQp(int index) {
        return entries.get(U32, at(index) + IbvWc.SRC_QP);
    }

    @Override
    public int wcFlags(int index) {
        return entries.get(U32, at(index) + IbvWc.WC_FLAGS);
    }

    @Override
    public int pkeyIndex(int index) {
        return Short.toUnsignedInt(entries.get(U16, at(index) + IbvWc.PKEY_INDEX));
    }

    @Override
    public int sourceLid(int index) {
        return Short.toUnsignedInt(entries.get(U16, at(index) + IbvWc.SLID));
    }

    @Override
    public synchronized void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    private long at(int index) {
        return Objects.checkIndex(index, capacity) * IbvWc.SIZE;
    }

    @Override
    public String toString() {
        return "ibv_wc[" + capacity + "]@0x" + Long.toHexString(entries.address()) + (isClosed() ? " (closed)" : "");
    }
}
