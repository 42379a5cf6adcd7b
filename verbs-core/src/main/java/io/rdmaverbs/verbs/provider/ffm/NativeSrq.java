package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.SrqHandle;

/** A shared receive queue, with its context's {@code post_srq_recv} op read once at creation. */
final class NativeSrq extends NativeHandle implements SrqHandle {

    private final NativeContext context;
    private final int srqNum;
    private final MemorySegment postSrqRecv;
    /** What posts hold while in flight; {@code destroySrq} quiesces them first. */
    private final CallGuards calls = new CallGuards();

    NativeSrq(NativeVerbsProvider provider, MemorySegment pointer, NativeContext context, int srqNum,
            MemorySegment postSrqRecv) {
        super(provider, "ibv_srq", pointer);
        this.context = context;
        this.srqNum = srqNum;
        this.postSrqRecv = postSrqRecv;
    }

    @Override
    public int srqNum() {
        return srqNum;
    }

    NativeContext context() {
        return context;
    }

    MemorySegment postSrqRecv() {
        return postSrqRecv;
    }

    CallGuards calls() {
        return calls;
    }
}
