package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

import io.rdmaverbs.verbs.provider.RecvWr;

/**
 * One {@code struct ibv_recv_wr}, its {@code ibv_sge[maxSge]} right behind it (with {@code sg_list}
 * pointing there) and the {@code bad_wr} out-pointer, in one off-heap segment, for QPs and SRQs alike.
 */
final class NativeRecvWr implements RecvWr {

    private final Arena arena = Arena.ofShared();
    private final int maxSge;
    private final MemorySegment wr;
    private final MemorySegment sgList;
    private final MemorySegment badWr;

    NativeRecvWr(int maxSge) {
        if (maxSge < 0) {
            throw new IllegalArgumentException("maxSge must be >= 0, was " + maxSge);
        }
        this.maxSge = maxSge;
        long sgOffset = IbvRecvWr.SIZE;
        long badWrOffset = sgOffset + maxSge * IbvSge.SIZE;
        MemorySegment all = arena.allocate(badWrOffset + ADDRESS.byteSize(), IbvRecvWr.LAYOUT.byteAlignment());
        this.wr = all.asSlice(0, IbvRecvWr.SIZE);
        this.sgList = all.asSlice(sgOffset, maxSge * IbvSge.SIZE);
        this.badWr = all.asSlice(badWrOffset, ADDRESS.byteSize());
        clear();
    }

    /** The {@code struct ibv_recv_wr *} to post. */
    MemorySegment wr() {
        return wr;
    }

    /** The {@code struct ibv_recv_wr **bad_wr} to post with. */
    MemorySegment badWr() {
        return badWr;
    }

    boolean isClosed() {
        return !arena.scope().isAlive();
    }

    @Override
    public int maxSge() {
        return maxSge;
    }

    @Override
    public void clear() {
        wr.fill((byte) 0);
        sgList.fill((byte) 0);
        wr.set(ADDRESS, IbvRecvWr.SG_LIST, sgList);
    }

    @Override
    public void wrId(long id) {
        wr.set(U64, IbvRecvWr.WR_ID, id);
    }

    @Override
    public long wrId() {
        return wr.get(U64, IbvRecvWr.WR_ID);
    }

    @Override
    public void sge(int index, long address, int length, int lkey) {
        long at = Objects.checkIndex(index, maxSge) * IbvSge.SIZE;
        sgList.set(U64, at + IbvSge.ADDR, address);
        sgList.set(U32, at + IbvSge.LENGTH, length);
        sgList.set(U32, at + IbvSge.LKEY, lkey);
    }

    @Override
    public void sgeCount(int count) {
        wr.set(C_INT, IbvRecvWr.NUM_SGE, Objects.checkIndex(count, maxSge + 1));
    }

    @Override
    public int sgeCount() {
        return wr.get(C_INT, IbvRecvWr.NUM_SGE);
    }

    @Override
    public long sgeAddress(int index) {
        return sgList.get(U64, Objects.checkIndex(index, maxSge) * IbvSge.SIZE + IbvSge.ADDR);
    }

    @Override
    public int sgeLength(int index) {
        return sgList.get(U32, Objects.checkIndex(index, maxSge) * IbvSge.SIZE + IbvSge.LENGTH);
    }

    @Override
    public int sgeLkey(int index) {
        return sgList.get(U32, Objects.checkIndex(index, maxSge) * IbvSge.SIZE + IbvSge.LKEY);
    }

    @Override
    public synchronized void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "ibv_recv_wr@0x" + Long.toHexString(wr.address()) + (isClosed() ? " (closed)" : "");
    }
}
