package io.rdmaverbs.verbs.provider.simulated;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.provider.MrHandle;

/** A registered memory region over the caller's native segment, which all data movement goes through. */
final class SimMr extends SimHandle implements MrHandle {

    private final SimContext context;
    final SimPd pd;
    final MemorySegment segment;
    final int access;
    private final int lkey;
    private final int rkey;

    SimMr(SimContext context, long id, SimPd pd, MemorySegment segment, int access, int lkey, int rkey) {
        super(context.provider, context.device, KernelObjectKind.MR, id);
        this.context = context;
        this.pd = pd;
        this.segment = segment;
        this.access = access;
        this.lkey = lkey;
        this.rkey = rkey;
    }

    @Override
    SimContext context() {
        return context;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public long address() {
        return segment.address();
    }

    @Override
    public long length() {
        return segment.byteSize();
    }

    boolean allows(AccessFlag flag) {
        return (access & flag.bit()) != 0;
    }

    /** Whether {@code [address, address + length)} lies inside the region. */
    boolean covers(long address, long length) {
        long start = segment.address();
        return address >= start && length >= 0 && address - start <= segment.byteSize() - length;
    }

    /** The part of the registered segment at {@code address}; call {@link #covers} first. */
    MemorySegment slice(long address, long length) {
        return segment.asSlice(address - segment.address(), length);
    }
}
