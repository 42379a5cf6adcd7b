package io.rdmaverbs.verbs.provider.simulated;

import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;

import io.rdmaverbs.verbs.provider.CqHandle;

import org.jspecify.annotations.Nullable;

/**
 * A completion queue with its arming state and event accounting. Guarded by the device lock.
 *
 * <p>{@code eventsDelivered} counts events handed out by {@code getCqEvent} (the kernel's
 * {@code comp_events_reported}), {@code eventsAcked} those acknowledged ({@code comp_events_completed});
 * destroy waits until they are equal. {@code kernelGone} marks a CQ whose kernel object is destroyed
 * while libibverbs still waits for those acknowledgements.
 */
final class SimCq extends SimHandle implements CqHandle {

    enum Arm { NONE, SOLICITED, NEXT }

    private final SimContext context;
    private final int capacity;
    final @Nullable SimCompChannel channel;
    final ArrayDeque<Completion> entries = new ArrayDeque<>();
    final Condition acked;
    Arm arm = Arm.NONE;
    int usecnt;
    /** The {@code wc_flags} of an extended CQ ({@code ibv_create_cq_ex}); -1 for a classic one. */
    long wcFlags = -1;
    /** The poller of an extended CQ, made with it. */
    @Nullable SimCqExPoller exPoller;
    long eventsDelivered;
    long eventsAcked;
    boolean kernelGone;

    SimCq(SimContext context, long id, int capacity, @Nullable SimCompChannel channel) {
        super(context.provider, context.device, KernelObjectKind.CQ, id);
        this.context = context;
        this.capacity = capacity;
        this.channel = channel;
        this.acked = context.device.lock.newCondition();
    }

    @Override
    SimContext context() {
        return context;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    void requireUsable() {
        super.requireUsable();
        if (kernelGone) {
            throw new IllegalStateException(describe() + " is being destroyed: ibv_destroy_cq waits for its"
                    + " completion events to be acknowledged");
        }
    }
}
