package io.rdmaverbs.verbs.provider.simulated;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;

import io.rdmaverbs.verbs.provider.CompChannelHandle;

/**
 * A completion channel: the queue of CQ events the kernel's event file holds, libibverbs'
 * {@code channel->refcnt} (CQs created on it), and a pending wake. Guarded by the device lock.
 */
final class SimCompChannel extends SimHandle implements CompChannelHandle {

    private final SimContext context;
    private final int fd;
    final ArrayDeque<SimCq> events = new ArrayDeque<>();
    final Condition eventArrived;
    int refcnt;
    /** A wake not yet seen by a waiter, like the counter of the native wake eventfd. */
    boolean wakePending;

    SimCompChannel(SimContext context, long id, int fd) {
        super(context.provider, context.device, KernelObjectKind.COMP_CHANNEL, id);
        this.context = context;
        this.fd = fd;
        this.eventArrived = context.device.lock.newCondition();
    }

    @Override
    SimContext context() {
        return context;
    }

    @Override
    public int fd() {
        return fd;
    }
}
