package io.rdmaverbs.verbs.provider.simulated;

import java.util.Objects;

import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.SendWr;

import org.jspecify.annotations.Nullable;

/** {@link SendWr} in plain arrays. Thread-confined like the interface says; using it after close is a bug. */
final class SimSendWr implements SendWr {

    final SimulatedProvider provider;
    private final long[] addresses;
    private final int[] lengths;
    private final int[] lkeys;
    private int sgeCount;
    private long wrId;
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
    private boolean closed;

    SimSendWr(SimulatedProvider provider, int maxSge) {
        if (maxSge < 0) {
            throw new IllegalArgumentException("maxSge must be >= 0, was " + maxSge);
        }
        this.provider = provider;
        addresses = new long[maxSge];
        lengths = new int[maxSge];
        lkeys = new int[maxSge];
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException("this send request was closed");
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public int maxSge() {
        return addresses.length;
    }

    @Override
    public void clear() {
        open();
        sgeCount = 0;
        wrId = 0;
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
    public void wrId(long id) {
        open();
        wrId = id;
    }

    @Override
    public long wrId() {
        open();
        return wrId;
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
    public void sge(int index, long address, int length, int lkey) {
        open();
        Objects.checkIndex(index, addresses.length);
        addresses[index] = address;
        lengths[index] = length;
        lkeys[index] = lkey;
    }

    @Override
    public void sgeCount(int count) {
        open();
        Objects.checkFromToIndex(0, count, addresses.length);
        sgeCount = count;
    }

    @Override
    public int sgeCount() {
        open();
        return sgeCount;
    }

    @Override
    public long sgeAddress(int index) {
        open();
        return addresses[Objects.checkIndex(index, addresses.length)];
    }

    @Override
    public int sgeLength(int index) {
        open();
        return lengths[Objects.checkIndex(index, addresses.length)];
    }

    @Override
    public int sgeLkey(int index) {
        open();
        return lkeys[Objects.checkIndex(index, addresses.length)];
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

    @Override
    public void close() {
        closed = true;
    }
}
