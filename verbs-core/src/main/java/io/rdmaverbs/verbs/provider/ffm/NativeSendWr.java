package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.BE32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static java.lang.foreign.ValueLayout.ADDRESS;

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
        super(IbvSendWr.LAYOUT, IbvSendWr.WR_ID, IbvSendWr.SG_LIST, IbvSendWr.NUM_SGE, maxSge);
        this.provider = provider;
    }

    @Override
    public void clear() {
        super.clear();
        addressHandle = null;
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
}
