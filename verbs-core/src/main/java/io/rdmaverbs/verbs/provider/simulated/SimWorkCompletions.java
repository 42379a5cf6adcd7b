package io.rdmaverbs.verbs.provider.simulated;

import java.util.Objects;

import io.rdmaverbs.verbs.attr.WorkCompletions;

/** {@link WorkCompletions} in plain arrays. Close is idempotent; reading or polling into a closed buffer is a bug. */
final class SimWorkCompletions implements WorkCompletions {

    final SimulatedProvider provider;
    private final long[] wrId;
    private final int[] status;
    private final int[] opcode;
    private final int[] byteLength;
    private final int[] immediate;
    private final int[] qpNum;
    private final int[] sourceQp;
    private final int[] flags;
    private final int[] sourceLid;
    private volatile boolean closed;

    SimWorkCompletions(SimulatedProvider provider, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, was " + capacity);
        }
        this.provider = provider;
        wrId = new long[capacity];
        status = new int[capacity];
        opcode = new int[capacity];
        byteLength = new int[capacity];
        immediate = new int[capacity];
        qpNum = new int[capacity];
        sourceQp = new int[capacity];
        flags = new int[capacity];
        sourceLid = new int[capacity];
    }

    void requireOpen() {
        if (closed) {
            throw new IllegalStateException("these work completions were closed");
        }
    }

    void set(int index, Completion c) {
        wrId[index] = c.wrId();
        status[index] = c.status().ordinal();
        opcode[index] = c.opcode().value();
        byteLength[index] = c.byteLength();
        immediate[index] = c.immediate();
        qpNum[index] = c.qpNum();
        sourceQp[index] = c.sourceQp();
        flags[index] = c.flags();
        sourceLid[index] = c.sourceLid();
    }

    private int at(int index) {
        requireOpen();
        return Objects.checkIndex(index, wrId.length);
    }

    @Override
    public int capacity() {
        return wrId.length;
    }

    @Override
    public long wrId(int index) {
        return wrId[at(index)];
    }

    @Override
    public int statusCode(int index) {
        return status[at(index)];
    }

    @Override
    public int opcodeCode(int index) {
        return opcode[at(index)];
    }

    @Override
    public int vendorError(int index) {
        at(index);
        return 0;
    }

    @Override
    public int byteLength(int index) {
        return byteLength[at(index)];
    }

    @Override
    public int immediateData(int index) {
        return immediate[at(index)];
    }

    @Override
    public int qpNum(int index) {
        return qpNum[at(index)];
    }

    @Override
    public int sourceQp(int index) {
        return sourceQp[at(index)];
    }

    @Override
    public int wcFlags(int index) {
        return flags[at(index)];
    }

    @Override
    public int pkeyIndex(int index) {
        at(index);
        return 0;
    }

    @Override
    public int sourceLid(int index) {
        return sourceLid[at(index)];
    }

    @Override
    public void close() {
        closed = true;
    }
}
