package io.rdmaverbs.verbs.provider.ffm;


import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.WorkCompletions;

/**
 * {@code struct ibv_wc[capacity]} in off-heap memory of its own, which {@code poll_cq} writes and the
 * accessors read in place: polling allocates nothing. A shared arena, because the buffer may be
 * made on one thread and polled on another. A poll passes the buffer and the CQ as bare addresses, under
 * the {@link CallGuard} of this buffer on that CQ (made at its first poll of that CQ), which guards both;
 * closing the buffer retires its guards first, so it waits for a poll in progress rather than freeing
 * memory the device's library is writing.
 */
final class NativeWorkCompletions implements WorkCompletions {

    private final Arena arena = Arena.ofShared();
    private final int capacity;
    private final MemorySegment entries;
    private final CallBindings<Bound> bindings = new CallBindings<>();

    /** What a poll of one CQ passes, under {@code guard}: the CQ and this buffer by bare address. */
    record Bound(CallGuard guard, long cqPointer, long entries) implements CallBindings.Binding {
    }

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

    /** Why a poll under {@code guard} was refused: this buffer closed, or the CQ's destroy began. */
    IllegalStateException refusal(CallGuard guard) {
        return guard.isRetired() ? new IllegalStateException(this + " was already closed")
                : CallGuards.refusal(guard.target());
    }

    /** What a poll of {@code cq} passes, and its guard: made at the first poll of {@code cq}. */
    Bound boundTo(NativeCq cq) {
        Bound b = bindings.find(cq);
        return b != null ? b : bind(cq);
    }

    private synchronized Bound bind(NativeCq cq) {
        if (isClosed()) {
            throw new IllegalStateException(this + " was already closed");
        }
        Bound b = bindings.find(cq);
        if (b == null) {
            b = new Bound(cq.calls().open(cq), cq.objectAddress(), entries.address());
            bindings.add(b);
        }
        return b;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public long wrId(int index) {
        return IbvWc.WR_ID.get(entries, at(index));
    }

    @Override
    public int statusCode(int index) {
        return IbvWc.STATUS.get(entries, at(index));
    }

    @Override
    public int opcodeCode(int index) {
        return IbvWc.OPCODE.get(entries, at(index));
    }

    @Override
    public int vendorError(int index) {
        return IbvWc.VENDOR_ERR.get(entries, at(index));
    }

    @Override
    public int byteLength(int index) {
        return IbvWc.BYTE_LEN.get(entries, at(index));
    }

    /** {@code ntohl(wc.imm_data)}: the big-endian layout does the conversion. */
    @Override
    public int immediateData(int index) {
        return IbvWc.IMM_DATA.get(entries, at(index));
    }

    @Override
    public int qpNum(int index) {
        return IbvWc.QP_NUM.get(entries, at(index));
    }

    @Override
    public int sourceQp(int index) {
        return IbvWc.SRC_QP.get(entries, at(index));
    }

    @Override
    public int wcFlags(int index) {
        return IbvWc.WC_FLAGS.get(entries, at(index));
    }

    @Override
    public int pkeyIndex(int index) {
        return Short.toUnsignedInt(IbvWc.PKEY_INDEX.get(entries, at(index)));
    }

    @Override
    public int sourceLid(int index) {
        return Short.toUnsignedInt(IbvWc.SLID.get(entries, at(index)));
    }

    @Override
    public synchronized void close() {
        if (arena.scope().isAlive()) {
            bindings.retireAll();
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
