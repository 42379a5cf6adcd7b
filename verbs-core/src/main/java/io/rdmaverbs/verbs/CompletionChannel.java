package io.rdmaverbs.verbs;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.CqHandle;

import org.jspecify.annotations.Nullable;

/**
 * A completion channel ({@code struct ibv_comp_channel}, {@code ibv_create_comp_channel(3)}): a file descriptor through which
 * completion events of its CQs arrive. {@code ibv_destroy_comp_channel} fails with {@code EBUSY}
 * while any CQ is still associated with it.
 *
 * <p>A close wakes the threads blocked in {@link #awaitEvent(Duration)}, which leave at once with
 * {@link ResourceClosedException}: closing the channel (or shutting down the application) stops its
 * waiters first, without waiting for their timeouts. {@link #wakeWaiters()} makes them return empty
 * without a close. Waits are also cut into slices of {@value #WAIT_SLICE_MILLIS} ms, a fallback for a
 * waiter a wake missed.
 */
public final class CompletionChannel extends VerbsResource {

    /**
     * The longest a waiter stays in native code before it looks at the channel's state again, when no
     * wake reached it.
     */
    static final long WAIT_SLICE_MILLIS = 100;
    /** How long a waiter steps aside for a CQ destroy before it looks again. */
    private static final long STEP_ASIDE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    final CompChannelHandle handle;
    /* Kept rather than asked of the provider per call: the event loop asks every slice. */
    private final CompletionVerbs cqVerbs;
    private final DeviceContext context;
    /**
     * Held while reading an event and while a CQ of this channel is destroyed, so that no event is
     * read between a CQ's last acknowledgement and its {@code ibv_destroy_cq} (which would then wait
     * forever for that event's ack).
     */
    final ReentrantLock eventLock = new ReentrantLock();
    /** Bumped by {@link #wakeWaiters()}: a waiter that saw it change returns empty. */
    private final AtomicLong wakes = new AtomicLong();
    /**
     * Threads inside {@link #awaitEvent(Duration)}, counted over the whole call: the call's in-flight
     * guard is taken per slice, so that a close need not wait a slice, and dips between slices.
     */
    private final AtomicInteger waiting = new AtomicInteger();
    /**
     * The CQ destroys waiting for {@link #eventLock}: while there are any, waiters keep out of
     * {@code getCqEvent}, so that a destroy does not wait a slice for each of them in turn.
     */
    private final AtomicInteger cqDestroys = new AtomicInteger();

    CompletionChannel(DeviceContext context, CompChannelHandle handle, @Nullable String name) {
        super(context.verbs, ResourceKind.COMPLETION_CHANNEL, List.of(context), name);
        this.handle = handle;
        this.cqVerbs = context.verbs.provider().completionVerbs();
        this.context = context;
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    /** The channel's file descriptor. */
    public int fd() {
        return handle.fd();
    }

    /**
     * Waits up to {@code timeout} for a completion event ({@code ibv_get_cq_event}). The returned CQ
     * has one more unacknowledged event: acknowledge it with {@link CompletionQueue#acknowledgeEvents(int)}
     * (its destroy blocks forever otherwise), then re-arm it and poll it.
     *
     * @return the CQ the event is for, or empty on timeout or when {@link #wakeWaiters()} was called
     *         during the wait
     * @throws ResourceClosedException once the channel is being closed (a close wakes the waiters, so
     *         this comes promptly)
     */
    public Optional<CompletionQueue> awaitEvent(Duration timeout) {
        waiting.incrementAndGet();
        try {
            return awaitInSlices(timeout);
        } finally {
            waiting.decrementAndGet();
        }
    }

    private Optional<CompletionQueue> awaitInSlices(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long woken = wakes.get();
        do {
            long remainingMillis = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            long slice = Math.min(remainingMillis, WAIT_SLICE_MILLIS);
            enter();
            try {
                if (cqDestroys.get() > 0) {
                    LockSupport.parkNanos(STEP_ASIDE_NANOS);
                    continue;
                }
                if (!eventLock.tryLock(slice, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                try {
                    if (wakes.get() != woken) {
                        return Optional.empty();
                    }
                    // A close or a CQ destroy that began while this thread waited for the lock woke only
                    // the waiter then inside getCqEvent: do not go in for a slice after it.
                    checkOpen();
                    if (cqDestroys.get() > 0) {
                        continue;
                    }
                    CqHandle cqHandle = cqVerbs.getCqEvent(handle, slice);
                    if (cqHandle != null) {
                        if (!(verbs.resourceOf(cqHandle) instanceof CompletionQueue cq)) {
                            throw new IllegalStateException(ref() + " delivered an event for a CQ the graph does not know: "
                                    + cqHandle.describe());
                        }
                        cq.eventDelivered();
                        return Optional.of(cq);
                    }
                    if (wakes.get() != woken) {
                        return Optional.empty();
                    }
                } finally {
                    eventLock.unlock();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            } catch (VerbsException e) {
                throw e.about(ref().toString());
            } finally {
                exit();
            }
        } while (System.nanoTime() < deadline);
        return Optional.empty();
    }

    /**
     * Makes the threads waiting in {@link #awaitEvent(Duration)} now return empty promptly, instead of
     * at their timeout (one that gets an event meanwhile returns it). Safe from any thread; does
     * nothing once the channel is closing, since the close wakes them itself.
     */
    public void wakeWaiters() {
        wakes.incrementAndGet();
        wakeWaitersIfOpen();
    }

    /**
     * Takes {@link #eventLock} for the destroy of one of this channel's CQs, waking the waiter inside
     * {@code getCqEvent} (which holds the lock for up to a slice) and keeping the others out until
     * {@link #unlockAfterCqDestroy()}.
     */
    void lockForCqDestroy() {
        cqDestroys.incrementAndGet();
        try {
            cqVerbs.wakeCqEventWaiters(handle);
        } catch (RuntimeException e) {
            // Best effort: the destroy then waits for the waiter's slice.
        }
        eventLock.lock();
    }

    void unlockAfterCqDestroy() {
        eventLock.unlock();
        cqDestroys.decrementAndGet();
    }

    @Override
    void wakeProviderWaiters() {
        cqVerbs.wakeCqEventWaiters(handle);
    }

    /** The number of threads waiting in {@link #awaitEvent(Duration)} now. */
    public int waiters() {
        return waiting.get();
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("fd", handle.fd());
        m.put("waiters", waiters());
        return m;
    }

    @Override
    void release() {
        cqVerbs.destroyCompChannel(handle);
    }
}
