package io.rdmaverbs.verbs.provider.simulated;

import java.util.Objects;

import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.SendWr;

import org.jspecify.annotations.Nullable;

/** {@link SendWr}: the send-only fields next to the shared id and scatter/gather list. */
final class SimSendWr extends SimWorkRequest implements SendWr {

    private SendOpcode opcode = SendOpcode.SEND;
    private int flags;
    private int immediate;
    private long remoteAddress;
    private int rkey;
    private long compareAdd;
    private long swap;
    private @Nullable AhHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private int xrcRemoteSrqNum;

    SimSendWr(SimulatedProvider provider, int maxSge) {
        super(provider, maxSge, "send");
    }

    @Override
    public void clear() {
        super.clear();
        opcode = SendOpcode.SEND;
        flags = 0;
        immediate = 0;
        remoteAddress = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        ah = null;
        remoteQpn = 0;
        remoteQkey = 0;
        xrcRemoteSrqNum = 0;
    }

    @Override
    public void opcode(SendOpcode value) {
        open();
        opcode = Objects.requireNonNull(value, "opcode");
    }

    @Override
    public SendOpcode opcode() {
        open();
        return opcode;
    }

    @Override
    public void flags(int sendFlags) {
        open();
        flags = sendFlags;
    }

    @Override
    public int flags() {
        open();
        return flags;
    }

    @Override
    public void immediateData(int imm) {
        open();
        immediate = imm;
    }

    @Override
    public int immediateData() {
        open();
        return immediate;
    }

    @Override
    public void rdma(long address, int key) {
        open();
        remoteAddress = address;
        rkey = key;
    }

    @Override
    public void atomic(long address, int key, long compare, long swapValue) {
        open();
        remoteAddress = address;
        rkey = key;
        compareAdd = compare;
        swap = swapValue;
    }

    @Override
    public long compareAdd() {
        open();
        return compareAdd;
    }

    @Override
    public long swap() {
        open();
        return swap;
    }

    @Override
    public long remoteAddress() {
        open();
        return remoteAddress;
    }

    @Override
    public int rkey() {
        open();
        return rkey;
    }

    @Override
    public void datagram(AhHandle addressHandle, int qpn, int qkey) {
        open();
        ah = Objects.requireNonNull(addressHandle, "addressHandle");
        remoteQpn = qpn;
        remoteQkey = qkey;
    }

    @Override
    public @Nullable AhHandle addressHandle() {
        open();
        return ah;
    }

    @Override
    public int remoteQpn() {
        open();
        return remoteQpn;
    }

    @Override
    public int remoteQkey() {
        open();
        return remoteQkey;
    }

    @Override
    public void xrcRemoteSrqNum(int srqNum) {
        open();
        xrcRemoteSrqNum = srqNum;
    }

    @Override
    public int xrcRemoteSrqNum() {
        open();
        return xrcRemoteSrqNum;
    }
}
