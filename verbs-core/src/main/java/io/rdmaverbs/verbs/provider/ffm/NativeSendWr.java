package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.SendWr;

import org.jspecify.annotations.Nullable;

/**
 * One {@code struct ibv_send_wr} with its scatter/gather list. The {@code wr} member is a union: setting
 * the RDMA or atomic destination overwrites the UD one and the reverse, as in C.
 */
final class NativeSendWr extends NativeWorkRequest implements SendWr {

    private final NativeVerbsProvider provider;
    private @Nullable NativeAh addressHandle;

    NativeSendWr(NativeVerbsProvider provider, int maxSge) {
        super(IbvSendWr.LAYOUT, maxSge);
        this.provider = provider;
    }

    /** A slot of a {@link NativeWrChain}. */
    NativeSendWr(NativeVerbsProvider provider, int maxSge, Arena arena, MemorySegment slot, MemorySegment badWr) {
        super(IbvSendWr.LAYOUT, maxSge, arena, slot, badWr);
        this.provider = provider;
    }

    @Override
    public void clear() {
        super.clear();
        addressHandle = null;
    }

    @Override
    public void opcode(SendOpcode opcode) {
        IbvSendWr.OPCODE.set(wr, opcode.value());
    }

    @Override
    public SendOpcode opcode() {
        return SendOpcode.of(IbvSendWr.OPCODE.get(wr));
    }

    @Override
    public void flags(int sendFlags) {
        IbvSendWr.SEND_FLAGS.set(wr, sendFlags);
    }

    @Override
    public int flags() {
        return IbvSendWr.SEND_FLAGS.get(wr);
    }

    /** {@code htonl}: the big-endian layout stores network order. */
    @Override
    public void immediateData(int imm) {
        IbvSendWr.IMM_DATA.set(wr, imm);
    }

    @Override
    public int immediateData() {
        return IbvSendWr.IMM_DATA.get(wr);
    }

    @Override
    public void rdma(long remoteAddress, int rkey) {
        IbvSendWr.RDMA_REMOTE_ADDR.set(wr, remoteAddress);
        IbvSendWr.RDMA_RKEY.set(wr, rkey);
        addressHandle = null;
    }

    @Override
    public void atomic(long remoteAddress, int rkey, long compareAdd, long swap) {
        IbvSendWr.ATOMIC_REMOTE_ADDR.set(wr, remoteAddress);
        IbvSendWr.ATOMIC_RKEY.set(wr, rkey);
        IbvSendWr.ATOMIC_COMPARE_ADD.set(wr, compareAdd);
        IbvSendWr.ATOMIC_SWAP.set(wr, swap);
        addressHandle = null;
    }

    /** The union's {@code rdma} and {@code atomic} members both start with {@code remote_addr}. */
    @Override
    public long remoteAddress() {
        return (isAtomic() ? IbvSendWr.ATOMIC_REMOTE_ADDR : IbvSendWr.RDMA_REMOTE_ADDR).get(wr);
    }

    @Override
    public int rkey() {
        return (isAtomic() ? IbvSendWr.ATOMIC_RKEY : IbvSendWr.RDMA_RKEY).get(wr);
    }

    @Override
    public long compareAdd() {
        return IbvSendWr.ATOMIC_COMPARE_ADD.get(wr);
    }

    @Override
    public long swap() {
        return IbvSendWr.ATOMIC_SWAP.get(wr);
    }

    private boolean isAtomic() {
        int op = IbvSendWr.OPCODE.get(wr);
        return op == SendOpcode.ATOMIC_CMP_AND_SWP.value() || op == SendOpcode.ATOMIC_FETCH_AND_ADD.value();
    }

    @Override
    public void datagram(AhHandle ah, int remoteQpn, int remoteQkey) {
        NativeAh checked = provider.live(ah, NativeAh.class);
        IbvSendWr.UD_AH.set(wr, checked.pointer());
        IbvSendWr.UD_REMOTE_QPN.set(wr, remoteQpn);
        IbvSendWr.UD_REMOTE_QKEY.set(wr, remoteQkey);
        addressHandle = checked;
    }

    @Override
    public @Nullable NativeAh addressHandle() {
        return addressHandle;
    }

    @Override
    public int remoteQpn() {
        return IbvSendWr.UD_REMOTE_QPN.get(wr);
    }

    @Override
    public int remoteQkey() {
        return IbvSendWr.UD_REMOTE_QKEY.get(wr);
    }

    @Override
    public void xrcRemoteSrqNum(int srqNum) {
        IbvSendWr.XRC_REMOTE_SRQN.set(wr, srqNum);
    }

    @Override
    public int xrcRemoteSrqNum() {
        return IbvSendWr.XRC_REMOTE_SRQN.get(wr);
    }

    @Override
    Field.OfLong wrIdField() {
        return IbvSendWr.WR_ID;
    }

    @Override
    Field.OfAddress sgListField() {
        return IbvSendWr.SG_LIST;
    }

    @Override
    Field.OfAddress nextField() {
        return IbvSendWr.NEXT;
    }

    @Override
    Field.OfInt numSgeField() {
        return IbvSendWr.NUM_SGE;
    }
}
