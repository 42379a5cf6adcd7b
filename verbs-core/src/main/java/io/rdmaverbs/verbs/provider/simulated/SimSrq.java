package io.rdmaverbs.verbs.provider.simulated;

import java.util.ArrayDeque;

import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.provider.SrqHandle;

import org.jspecify.annotations.Nullable;

/** A shared receive queue, basic or XRC. {@code usecnt} counts the QPs receiving through it. */
final class SimSrq extends SimHandle implements SrqHandle {

    private final SimContext context;
    final SimPd pd;
    final SrqType type;
    final @Nullable SimXrcd xrcd;
    final @Nullable SimCq cq;
    final int slots;
    final int maxSge;
    private final int srqNum;
    final ArrayDeque<PostedRecv> queue = new ArrayDeque<>();
    int usecnt;

    SimSrq(SimContext context, long id, SimPd pd, SrqType type, @Nullable SimXrcd xrcd, @Nullable SimCq cq, int slots,
            int maxSge, int srqNum) {
        super(context.provider, context.device, KernelObjectKind.SRQ, id);
        this.context = context;
        this.pd = pd;
        this.type = type;
        this.xrcd = xrcd;
        this.cq = cq;
        this.slots = slots;
        this.maxSge = maxSge;
        this.srqNum = srqNum;
    }

    @Override
    SimContext context() {
        return context;
    }

    @Override
    public int srqNum() {
        return srqNum;
    }
}
