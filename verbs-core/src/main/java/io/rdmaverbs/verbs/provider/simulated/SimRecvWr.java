package io.rdmaverbs.verbs.provider.simulated;

import java.util.Objects;

import io.rdmaverbs.verbs.provider.RecvWr;

/** {@link RecvWr} in plain arrays. Thread-confined; using it after close is a bug. */
final class SimRecvWr implements RecvWr {

    final SimulatedProvider provider;
    private final long[] addresses;
    private final int[] lengths;
    private final int[] lkeys;
    private int sgeCount;
    private long wrId;
    private boolean closed;

    SimRecvWr(SimulatedProvider provider, int maxSge) {
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
            throw new IllegalStateException("this receive request was closed");
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
    public void close() {
        closed = true;
    }
}
