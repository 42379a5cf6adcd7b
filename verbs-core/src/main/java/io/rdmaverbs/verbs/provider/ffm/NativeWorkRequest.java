package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.Objects;

import io.rdmaverbs.verbs.provider.WorkRequest;

/**
 * One work request struct ({@code ibv_send_wr} or {@code ibv_recv_wr}), its {@code ibv_sge[maxSge]}
 * right behind it (with {@code sg_list} pointing there) and the {@code bad_wr} out-pointer, in one
 * off-heap segment: setters write the C struct directly and posting passes it as it is. Both structs
 * begin with {@code wr_id}, {@code next}, {@code sg_list}, {@code num_sge} at the same offsets (the ABI
 * test checks both), which is what this class handles.
 */
abstract sealed class NativeWorkRequest implements WorkRequest permits NativeSendWr, NativeRecvWr {

    private final Arena arena = Arena.ofShared();
    private final int maxSge;
    private final String struct;
    final MemorySegment wr;
    private final MemorySegment sgList;
    private final MemorySegment badWr;
    private final MemorySegment callState;
    private final long wrIdOffset;
    private final long sgListOffset;
    private final long numSgeOffset;

    NativeWorkRequest(StructLayout layout, long wrIdOffset, long sgListOffset, long numSgeOffset, int maxSge) {
        if (maxSge < 0) {
            throw new IllegalArgumentException("maxSge must be >= 0, was " + maxSge);
        }
        this.maxSge = maxSge;
        this.struct = layout.name().orElseThrow();
        this.wrIdOffset = wrIdOffset;
        this.sgListOffset = sgListOffset;
        this.numSgeOffset = numSgeOffset;
        long sgOffset = layout.byteSize();
        long badWrOffset = sgOffset + maxSge * IbvSge.SIZE;
        MemorySegment all = arena.allocate(badWrOffset + ADDRESS.byteSize(), layout.byteAlignment());
        this.wr = all.asSlice(0, layout.byteSize());
        this.sgList = all.asSlice(sgOffset, maxSge * IbvSge.SIZE);
        this.badWr = all.asSlice(badWrOffset, ADDRESS.byteSize());
        this.callState = CallState.allocate(arena);
        clear();
    }

    /** The struct pointer to post. */
    final MemorySegment wr() {
        return wr;
    }

    /** The {@code bad_wr} out-pointer to post with. */
    final MemorySegment badWr() {
        return badWr;
    }

    /** Where the post leaves {@code errno}: the request's own slot, as the request is thread-confined. */
    final MemorySegment callState() {
        return callState;
    }

    final boolean isClosed() {
        return !arena.scope().isAlive();
    }

    @Override
    public final int maxSge() {
        return maxSge;
    }

    @Override
    public void clear() {
        wr.fill((byte) 0);
        sgList.fill((byte) 0);
        wr.set(ADDRESS, sgListOffset, sgList);
    }

    @Override
    public final void wrId(long id) {
        wr.set(U64, wrIdOffset, id);
    }

    @Override
    public final long wrId() {
        return wr.get(U64, wrIdOffset);
    }

    @Override
    public final void sge(int index, long address, int length, int lkey) {
        long at = Objects.checkIndex(index, maxSge) * IbvSge.SIZE;
        sgList.set(U64, at + IbvSge.ADDR, address);
        sgList.set(U32, at + IbvSge.LENGTH, length);
        sgList.set(U32, at + IbvSge.LKEY, lkey);
    }

    @Override
    public final void sgeCount(int count) {
        wr.set(C_INT, numSgeOffset, Objects.checkIndex(count, maxSge + 1));
    }

    @Override
    public final int sgeCount() {
        return wr.get(C_INT, numSgeOffset);
    }

    @Override
    public final long sgeAddress(int index) {
        return sgList.get(U64, Objects.checkIndex(index, maxSge) * IbvSge.SIZE + IbvSge.ADDR);
    }

    @Override
    public final int sgeLength(int index) {
        return sgList.get(U32, Objects.checkIndex(index, maxSge) * IbvSge.SIZE + IbvSge.LENGTH);
    }

    @Override
    public final int sgeLkey(int index) {
        return sgList.get(U32, Objects.checkIndex(index, maxSge) * IbvSge.SIZE + IbvSge.LKEY);
    }

    @Override
    public final synchronized void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    @Override
    public final String toString() {
        return struct + "@0x" + Long.toHexString(wr.address()) + (isClosed() ? " (closed)" : "");
    }
}
