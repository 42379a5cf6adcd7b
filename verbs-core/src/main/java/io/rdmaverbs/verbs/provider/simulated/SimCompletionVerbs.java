package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;
import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.requireNotDestroyed;
import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.users;

import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqExPoller;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.QueueLock;

import org.jspecify.annotations.Nullable;

/**
 * Completion channels and CQs: their creation and EBUSY rules, arming and polling, and the completion
 * events a channel hands out and {@code ibv_ack_cq_events} acknowledges ({@code ibv_destroy_cq} waits
 * for them).
 */
final class SimCompletionVerbs implements CompletionVerbs {

    private final SimUverbs uverbs;
    private final DescriptorTable descriptors;

    SimCompletionVerbs(SimUverbs uverbs, DescriptorTable descriptors) {
        this.uverbs = uverbs;
        this.descriptors = descriptors;
    }

    @Override
    public CompChannelHandle createCompChannel(ContextHandle context) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        uverbs.call("ibv_create_comp_channel", ctx);
        SimDevice d = ctx.device;
        return locked(d, () -> {
            d.requireAlive("ibv_create_comp_channel", ctx.describe());
            d.allocate(KernelObjectKind.COMP_CHANNEL, "ibv_create_comp_channel", ctx.describe());
            SimCompChannel channel = new SimCompChannel(ctx, d.nextId(KernelObjectKind.COMP_CHANNEL),
                    descriptors.openChannel());
            ctx.adopt(channel);
            return channel;
        });
    }

    /** libibverbs refuses while CQs were created on the channel ({@code channel->refcnt}), even after a fatal error. */
    @Override
    public void destroyCompChannel(CompChannelHandle channel) {
        SimCompChannel ch = uverbs.own(channel, SimCompChannel.class);
        uverbs.call("ibv_destroy_comp_channel", ch);
        SimDevice d = ch.device;
        locked(d, () -> {
            ch.requireUsable();
            if (ch.refcnt > 0) {
                throw new VerbsException("ibv_destroy_comp_channel", ch.describe(), Errno.EBUSY, ch.refcnt
                        + " CQ(s) were created on this channel: " + users(ch.context(), h -> h instanceof SimCq cq
                                && cq.channel == ch) + "; destroy them first");
            }
            descriptors.closeChannel(ch.fd());
            ch.events.clear();
            d.free(KernelObjectKind.COMP_CHANNEL);
            ch.context().release(ch);
            ch.markDestroyed();
            ch.eventArrived.signalAll();
        });
    }

    @Override
    public CqHandle createCq(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector) {
        return create("ibv_create_cq", context, cqe, channel, compVector, -1);
    }

    /**
     * {@code ibv_create_cq_ex}: what {@code ibv_create_cq} checks, after the provider's own check of
     * {@code wc_flags} (rxe's {@code rxe_create_cq_ex} fails EOPNOTSUPP before any system call).
     */
    @Override
    public CqHandle createCqEx(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector,
            long wcFlags) {
        return create("ibv_create_cq_ex", context, cqe, channel, compVector, wcFlags);
    }

    @Override
    public CqExPoller cqExPoller(CqHandle cq) {
        SimCq c = uverbs.own(cq, SimCq.class);
        SimCqExPoller poller = c.exPoller;
        if (poller == null) {
            throw new IllegalArgumentException(c.describe() + " was created with ibv_create_cq, not ibv_create_cq_ex");
        }
        return poller;
    }

    private CqHandle create(String verb, ContextHandle context, int cqe, @Nullable CompChannelHandle channel,
            int compVector, long wcFlags) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        SimCompChannel ch = channel == null ? null : uverbs.own(channel, SimCompChannel.class);
        uverbs.call(verb, ctx);
        SimDevice d = ctx.device;
        return locked(d, () -> {
            long unsupported = wcFlags & ~d.driver().supportedWcFlags();
            if (wcFlags != -1 && unsupported != 0) {
                throw new VerbsException(verb, ctx.describe(), Errno.EOPNOTSUPP, d.name() + " cannot report wc_flags 0x"
                        + Long.toHexString(unsupported) + " (supported: 0x" + Long.toHexString(d.driver()
                                .supportedWcFlags()) + ")");
            }
            d.requireAlive(verb, ctx.describe());
            if (ch != null && ch.context() != ctx) {
                // Assumed EINVAL: the kernel looks the channel up among this context's objects.
                throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, ch.describe()
                        + " belongs to another context; create the channel in this one");
            }
            int vectors = d.profile.attributes().numCompVectors();
            if (compVector < 0 || compVector >= vectors) {
                throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "completion vector "
                        + compVector + " does not exist: " + d.name() + " has num_comp_vectors " + vectors
                        + " (valid 0.." + (vectors - 1) + ")");
            }
            int maxCqe = d.profile.attributes().maxCqe();
            if (cqe < 1 || cqe > maxCqe) {
                throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "cqe " + cqe
                        + " is outside 1.." + maxCqe + " (max_cqe of " + d.name() + ")");
            }
            d.allocate(KernelObjectKind.CQ, verb, ctx.describe());
            SimCq cq = new SimCq(ctx, d.nextId(KernelObjectKind.CQ), Driver.queueSlots(cqe), ch);
            if (wcFlags != -1) {
                cq.wcFlags = wcFlags;
                cq.exPoller = new SimCqExPoller(cq);
            }
            if (ch != null) {
                ch.refcnt++;
            }
            ctx.adopt(cq);
            return cq;
        });
    }

    /**
     * {@code ibv_destroy_cq}: EBUSY while QPs or XRC SRQs use the CQ. Otherwise the kernel object goes,
     * and then - like libibverbs' {@code ibv_cmd_destroy_cq} - this call BLOCKS until every completion
     * event {@link #getCqEvent} returned for the CQ has been acknowledged with {@link #ackCqEvents}, by
     * this or another thread. Events still queued on the channel and not yet returned are discarded.
     *
     * <p>The wait is interruptible (libibverbs' is not): an interrupt ends it with EINTR, the interrupt
     * flag set again, and the handle left alive but usable only for {@link #ackCqEvents} and another
     * {@code destroyCq}, which resumes the wait. After a fatal device error it does not wait.
     */
    @Override
    public void destroyCq(CqHandle cq) {
        SimCq c = uverbs.identify(cq, SimCq.class);
        requireNotDestroyed(c);
        uverbs.call("ibv_destroy_cq", c);
        // An open batch reads the CQ until its end, as the native provider's destroy waits for it.
        QueueLock.shutFor(c.exPoller == null ? null : c.exPoller.batch, () -> destroyLocked(c));
    }

    private void destroyLocked(SimCq c) {
        SimDevice d = c.device;
        d.lock.lock();
        try {
            requireNotDestroyed(c);
            if (!c.kernelGone) {
                if (!d.fatal && c.usecnt > 0) {
                    throw new VerbsException("ibv_destroy_cq", c.describe(), Errno.EBUSY, "still used by "
                            + c.usecnt + " QP queue(s) or XRC SRQ(s): " + users(c.context(), h -> usesCq(h, c))
                            + "; destroy them first");
                }
                c.kernelGone = true;
                c.entries.clear();
                if (c.channel != null) {
                    c.channel.events.removeIf(e -> e == c);
                }
                d.free(KernelObjectKind.CQ);
            }
            while (!d.fatal && c.eventsAcked != c.eventsDelivered) {
                try {
                    c.acked.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new VerbsException("ibv_destroy_cq", c.describe(), Errno.EINTR, "interrupted while waiting"
                            + " for " + (c.eventsDelivered - c.eventsAcked) + " completion event(s) to be"
                            + " acknowledged (ibv_ack_cq_events); the CQ is gone from the device, call destroyCq"
                            + " again after acknowledging them");
                }
            }
            if (c.channel != null) {
                c.channel.refcnt--;
            }
            c.context().release(c);
            c.markDestroyed();
        } finally {
            d.lock.unlock();
        }
    }

    @Override
    public void reqNotifyCq(CqHandle cq, boolean solicitedOnly) {
        SimCq c = uverbs.own(cq, SimCq.class);
        uverbs.call("ibv_req_notify_cq", c);
        if (c.exPoller != null) {
            // Where req_notify_cq takes the CQ lock a batch holds (irdma), the batch's own thread would wait forever.
            c.exPoller.batch.refuseHeldByCaller("ibv_req_notify_cq");
        }
        SimDevice d = c.device;
        locked(d, () -> {
            c.requireUsable();
            d.requireAlive("ibv_req_notify_cq", c.describe());
            // rxe_req_notify_cq: a request for the next completion is not weakened to solicited-only.
            if (!solicitedOnly) {
                c.arm = SimCq.Arm.NEXT;
            } else if (c.arm != SimCq.Arm.NEXT) {
                c.arm = SimCq.Arm.SOLICITED;
            }
        });
    }

    /** Works after a fatal device error too: polling reads user-mapped memory, no system call. */
    @Override
    public int pollCq(CqHandle cq, WorkCompletions completions, int max) {
        SimCq c = uverbs.own(cq, SimCq.class);
        uverbs.call("ibv_poll_cq", c);
        if (!(completions instanceof SimWorkCompletions wc) || wc.provider != uverbs.provider) {
            throw new IllegalArgumentException("work completions must come from this provider's newWorkCompletions");
        }
        wc.requireOpen();
        if (max < 0 || max > wc.capacity()) {
            throw new IllegalArgumentException("max must be 0.." + wc.capacity() + " (the buffer's capacity), was "
                    + max);
        }
        SimDevice d = c.device;
        // rxe's poll_cq takes the CQ lock a batch holds: it waits for another thread's batch, and would wait
        // forever for its own thread's.
        return QueueLock.takenFor(c.exPoller == null ? null : c.exPoller.batch, "ibv_poll_cq", () -> locked(d, () -> {
            c.requireUsable();
            int n = 0;
            while (n < max && !c.entries.isEmpty()) {
                wc.set(n++, c.entries.pollFirst());
            }
            return n;
        }));
    }

    @Override
    public WorkCompletions newWorkCompletions(int capacity) {
        return new SimWorkCompletions(uverbs.provider, capacity);
    }

    /** Negative {@code timeoutMillis} waits without limit, like {@code poll(2)}. */
    @Override
    public @Nullable CqHandle getCqEvent(CompChannelHandle channel, long timeoutMillis) {
        SimCompChannel ch = uverbs.own(channel, SimCompChannel.class);
        uverbs.call("ibv_get_cq_event", ch);
        SimDevice d = ch.device;
        long remaining = TimeUnit.MILLISECONDS.toNanos(Math.max(timeoutMillis, 0));
        d.lock.lock();
        try {
            while (true) {
                ch.requireUsable();
                SimCq cq = ch.events.pollFirst();
                if (cq != null) {
                    cq.eventsDelivered++;
                    return cq;
                }
                if (ch.wakePending) {
                    ch.wakePending = false;
                    return null;
                }
                if (d.fatal) {
                    throw new VerbsException("ibv_get_cq_event", ch.describe(), Errno.EIO, "device " + d.name()
                            + " had a fatal error; no more completion events will come");
                }
                if (timeoutMillis >= 0 && remaining <= 0) {
                    return null;
                }
                try {
                    if (timeoutMillis < 0) {
                        ch.eventArrived.await();
                    } else {
                        remaining = ch.eventArrived.awaitNanos(remaining);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new VerbsException("ibv_get_cq_event", ch.describe(), Errno.EINTR,
                            "interrupted while waiting for a completion event");
                }
            }
        } finally {
            d.lock.unlock();
        }
    }

    @Override
    public void wakeCqEventWaiters(CompChannelHandle channel) {
        SimCompChannel ch = uverbs.identify(channel, SimCompChannel.class);
        SimDevice d = ch.device;
        locked(d, () -> {
            if (ch.isDestroyed() || ch.context().isDestroyed()) {
                return;
            }
            ch.wakePending = true;
            ch.eventArrived.signalAll();
        });
    }

    /** Acknowledging more events than {@link #getCqEvent} returned and were not yet acknowledged is a caller bug. */
    @Override
    public void ackCqEvents(CqHandle cq, int count) {
        SimCq c = uverbs.identify(cq, SimCq.class);
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, was " + count);
        }
        SimDevice d = c.device;
        locked(d, () -> {
            requireNotDestroyed(c);
            long outstanding = c.eventsDelivered - c.eventsAcked;
            if (count > outstanding) {
                throw new IllegalArgumentException("acknowledging " + count + " event(s) of " + c.describe()
                        + " but only " + outstanding + " were returned by getCqEvent and not yet acknowledged");
            }
            c.eventsAcked += count;
            c.acked.signalAll();
        });
    }

    private static boolean usesCq(SimHandle h, SimCq cq) {
        return (h instanceof SimQp q && (q.qp.sendCq == cq || q.qp.recvCq == cq)) || (h instanceof SimSrq s && s.cq == cq);
    }
}
