package io.rdmaverbs.verbs.provider.simulated;

import java.util.Objects;

import io.rdmaverbs.verbs.provider.WorkRequest;

/**
 * The id and scatter/gather list both kinds of simulated work request keep, in plain arrays.
 * Thread-confined like the interface says; using it after close is a bug and fails.
 */
abstract sealed class SimWorkRequest implements WorkRequest permits SimSendWr, SimRecvWr {

    final SimulatedProvider provider;
    private final String kind;
    private final long[] addresses;
    private final int[] lengths;
    private final int[] lkeys;
    private int sgeCount;
    private long wrId;
    private boolean closed;
    /** A slot of a {@link SimWrChain}: closed with its chain only. */
    private boolean chained;

    SimWorkRequest(SimulatedProvider provider, int maxSge, String kind) {
        if (maxSge < 0) {
            throw new IllegalArgumentException("maxSge must be >= 0, was " + maxSge);
        }
        this.provider = provider;
        this.kind = kind;
        addresses = new long[maxSge];
        lengths = new int[maxSge];
        lkeys = new int[maxSge];
    }

    final void open() {
        if (closed) {
            throw new IllegalStateException("this " + kind + " request was closed");
        }
    }

    final boolean isClosed() {
        return closed;
    }

    @Override
    public final int maxSge() {
        return addresses.length;
    }

    @Override
    public void clear() {
        open();
        sgeCount = 0;
        wrId = 0;
    }

    @Override
    public final void wrId(long id) {
        open();
        wrId = id;
    }

    @Override
    public final long wrId() {
        open();
        return wrId;
    }

    @Override
    public final void sge(int index, long address, int length, int lkey) {
        open();
        Objects.checkIndex(index, addresses.length);
        addresses[index] = address;
        lengths[index] = length;
        lkeys[index] = lkey;
    }

    @Override
    public final void sgeCount(int count) {
        open();
        Objects.checkFromToIndex(0, count, addresses.length);
        sgeCount = count;
    }

    @Override
    public final int sgeCount() {
        open();
        return sgeCount;
    }

    @Override
    public final long sgeAddress(int index) {
        open();
        return addresses[Objects.checkIndex(index, addresses.length)];
    }

    @Override
    public final int sgeLength(int index) {
        open();
        return lengths[Objects.checkIndex(index, addresses.length)];
    }

    @Override
    public final int sgeLkey(int index) {
        open();
        return lkeys[Objects.checkIndex(index, addresses.length)];
    }

    final void ownedByChain() {
        chained = true;
    }

    final void closeWithChain() {
        closed = true;
    }

    @Override
    public final void close() {
        if (chained) {
            throw new IllegalStateException("this " + kind + " request is a slot of a chain: close the chain");
        }
        closed = true;
    }
}
