package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.BE32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.SendWr;

import org.jspecify.annotations.Nullable;

/**
 * One {@code struct ibv_send_wr}, its {@code ibv_sge[maxSge]} right behind it (with {@code sg_list}
 * pointing there) and the {@code bad_wr} out-pointer, in one off-heap segment: setters write the C
 * struct directly and posting passes it as it is. The {@code wr} member is a union: setting the RDMA
 * destination overwrites the UD one and the reverse, as in C.
 */
final class NativeSendWr implements SendWr {

    private final NativeVerbsProvider provider;
    private final Arena arena = Arena.ofShared();
    private final int maxSge;
    private final MemorySegment wr;
    private final MemorySegment sgList;
    private final MemorySegment badWr;
    private @Nullable NativeAh addressHandle;

    NativeSendWr(NativeVerbsProvider provider, int maxSge) {
        if (maxSge < 0) {
            throw new IllegalArgumentException("maxSge must be >= 0, was " + maxSge);
        }
        this.provider = provider;
        this.maxSge = maxSge;
        long sgOffset = IbvSendWr.SIZE;
        long badWrOffset = sgOffset + maxSge * IbvSge.SIZE;
        MemorySegment all = arena.allocate(badWrOffset + ADDRESS.byteSize(), IbvSendWr.LAYOUT.byteAlignment());
        this.wr = all.asSlice(0, IbvSendWr.SIZE);
        this.sgList = all.asSlice(sgOffset, maxSge * IbvSge.SIZE);
        this.badWr = all.asSlice(badWrOffset, ADDRESS.byteSize());
        clear();
    }

    /** The {@code struct ibv_send_wr *} to post. */
    MemorySegment wr() {
        return wr;
    }

    /** The {@code struct ibv_send_wr **bad_wr} to post with. */
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
        wr.set(ADDRESS, IbvSendWr.SG_LIST, sgList);
        addressHandle = null;
    }

    @Override
    public void wrId(long id) {
        wr.set(U64, IbvSendWr.WR_ID, id);
    }

    @Override
    public long wrId() {
        return wr.get(U64, IbvSendWr.WR_ID);
    }

    @Override
    public void opcode(SendOpcode opcode) {
        wr.set(C_ENUM, IbvSendWr.OPCODE, opcode.value());
    }

    @Override
    public SendOpcode opcode() {
        return SendOpcode.of(wr.get(C_ENUM, IbvSendWr.OPCODE));
    }

    @Override
    public void flags(int sendFlags) {
        wr.set(U32, IbvSendWr.SEND_FLAGS, sendFlags);
    }

    @Override
    public int flags() {
        return wr.get(U32, IbvSendWr.SEND_FLAGS);
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
        wr.set(C_INT, IbvSendWr.NUM_SGE, Objects.checkIndex(count, maxSge + 1));
    }

    @Override
    public int sgeCount() {
        return wr.get(C_INT, IbvSendWr.NUM_SGE);
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

    /** {@code htonl}: the big-endian layout stores network order. */
    @Override
    public void immediateData(int imm) {
        wr.set(BE32, IbvSendWr.IMM_DATA, imm);
    }

    @Override
    public int immediateData() {
        return wr.get(BE32, IbvSendWr.IMM_DATA);
    }

    @Override
    public void rdma(long remoteAddress, int rkey) {
        wr.set(U64, IbvSendWr.RDMA_REMOTE_ADDR, remoteAddress);
        wr.set(U32, IbvSendWr.RDMA_RKEY, rkey);
        addressHandle = null;
    }

    @Override
    public void atomic(long remoteAddress, int rkey, long compareAdd, long swap) {
        wr.set(U64, IbvSendWr.ATOMIC_REMOTE_ADDR, remoteAddress);
        wr.set(U32, IbvSendWr.ATOMIC_RKEY, rkey);
        wr.set(U64, IbvSendWr.ATOMIC_COMPARE_ADD, compareAdd);
        wr.set(U64, IbvSendWr.ATOMIC_SWAP, swap);
        addressHandle = null;
    }

    /** The union's {@code rdma} and {@code atomic} members both start with {@code remote_addr}. */
    @Override
    public long remoteAddress() {
        return wr.get(U64, isAtomic() ? IbvSendWr.ATOMIC_REMOTE_ADDR : IbvSendWr.RDMA_REMOTE_ADDR);
    }

    @Override
    public int rkey() {
        return wr.get(U32, isAtomic() ? IbvSendWr.ATOMIC_RKEY : IbvSendWr.RDMA_RKEY);
    }

    @Override
    public long compareAdd() {
        return wr.get(U64, IbvSendWr.ATOMIC_COMPARE_ADD);
    }

    @Override
    public long swap() {
        return wr.get(U64, IbvSendWr.ATOMIC_SWAP);
    }

    private boolean isAtomic() {
        int op = wr.get(C_ENUM, IbvSendWr.OPCODE);
        return op == SendOpcode.ATOMIC_CMP_AND_SWP.value() || op == SendOpcode.ATOMIC_FETCH_AND_ADD.value();
    }

    @Override
    public void datagram(AhHandle ah, int remoteQpn, int remoteQkey) {
        NativeAh checked = provider.live(ah, NativeAh.class);
        wr.set(ADDRESS, IbvSendWr.UD_AH, checked.pointer());
        wr.set(U32, IbvSendWr.UD_REMOTE_QPN, remoteQpn);
        wr.set(U32, IbvSendWr.UD_REMOTE_QKEY, remoteQkey);
        addressHandle = checked;
    }

    @Override
    public @Nullable NativeAh addressHandle() {
        return addressHandle;
    }

    @Override
    public int remoteQpn() {
        return wr.get(U32, IbvSendWr.UD_REMOTE_QPN);
    }

    @Override
    public int remoteQkey() {
        return wr.get(U32, IbvSendWr.UD_REMOTE_QKEY);
    }

    @Override
    public void xrcRemoteSrqNum(int srqNum) {
        wr.set(U32, IbvSendWr.XRC_REMOTE_SRQN, srqNum);
    }

    @Override
    public int xrcRemoteSrqNum() {
        return wr.get(U32, IbvSendWr.XRC_REMOTE_SRQN);
    }

    @Override
    public synchronized void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "ibv_send_wr@0x" + Long.toHexString(wr.address()) + (isClosed() ? " (closed)" : "");
    }
}
