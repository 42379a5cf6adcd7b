package io.rdmaverbs.verbs;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.StuckReference.Consequence;
import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.CqExPoller;
import io.rdmaverbs.verbs.provider.CqHandle;

import org.jspecify.annotations.Nullable;

/**
 * A completion queue ({@code struct ibv_cq}). {@code ibv_destroy_cq} fails with {@code EBUSY} while a
 * QP or SRQ uses it, and blocks forever while completion events taken from its channel are not
 * acknowledged: the graph counts those events and never lets a destroy run into that.
 *
 * <p>An extended CQ ({@code ibv_create_cq_ex(3)}, {@link CompletionQueueSpec#withExtendedPolling}) is this
 * same resource, not a kind of its own: its {@code struct ibv_cq_ex} begins with the {@code struct ibv_cq},
 * it is destroyed by {@code ibv_destroy_cq} under the same EBUSY and event rules, and it polls either way;
 * what it adds is {@link #newPoller()}.
 */
public final class CompletionQueue extends VerbsResource {

    final CqHandle handle;
    /* Kept rather than asked of the provider per call: polling and arming are the data path. */
    private final CompletionVerbs cqVerbs;
    private final DeviceContext context;
    private final @Nullable CompletionChannel channel;
    private final int compVector;
    /** The fields an extended CQ reports ({@code ibv_create_cq_ex}); null for a classic CQ. */
    private final @Nullable Set<CompletionField> extendedFields;
    private final @Nullable CqExPoller exPoller;
    private final AtomicInteger unacknowledged = new AtomicInteger();
    /** When (and, if traced, where) the current run of unacknowledged events began; null when none. */
    private final AtomicReference<@Nullable EventTaken> oldestUnacknowledged = new AtomicReference<>();
    /** Whether a delivered event records the stack that took it: costs a stack walk per run, so off by default. */
    private volatile boolean traceEventOrigins;
    /** Set by a cascade close: events that arrive while it runs are acknowledged, not refused. */
    private volatile boolean cascading;

    CompletionQueue(DeviceContext context, CqHandle handle, @Nullable CompletionChannel channel, int compVector,
            @Nullable Set<CompletionField> extendedFields, @Nullable String name) {
        super(context.verbs, ResourceKind.COMPLETION_QUEUE,
                channel == null ? List.of(context) : List.of(context, channel), name);
        this.handle = handle;
        this.cqVerbs = context.verbs.provider().completionVerbs();
        this.context = context;
        this.channel = channel;
        this.compVector = compVector;
        this.extendedFields = extendedFields;
        this.exPoller = extendedFields == null ? null : cqVerbs.cqExPoller(handle);
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    public @Nullable CompletionChannel channel() {
        return channel;
    }

    /** The actual number of entries (at least what was asked for). */
    public int capacity() {
        return handle.capacity();
    }

    public int compVector() {
        return compVector;
    }

    /** Whether the CQ was created with {@code ibv_create_cq_ex} and can be polled with {@link #newPoller()}. */
    public boolean isExtended() {
        return extendedFields != null;
    }

    /**
     * A polling session ({@code ibv_start_poll}, {@code ibv_wc_read_*}) on this extended CQ; one per
     * polling thread. {@link #poll} works on an extended CQ too.
     *
     * @throws IllegalStateException on a CQ created without {@link CompletionQueueSpec#withExtendedPolling}
     */
    public CompletionPoller newPoller() {
        CqExPoller poller = exPoller;
        Set<CompletionField> fields = extendedFields;
        if (poller == null || fields == null) {
            throw new IllegalStateException(ref() + " was created with ibv_create_cq; an extended poller needs "
                    + "ibv_create_cq_ex (CompletionQueueSpec.withExtendedPolling)");
        }
        checkOpen();
        return new CompletionPoller(this, poller, fields);
    }

    /** A buffer of {@code capacity} completions to {@link #poll} into; one per polling thread. */
    public WorkCompletions newWorkCompletions(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a completion buffer needs at least one entry, asked for " + capacity);
        }
        return cqVerbs.newWorkCompletions(capacity);
    }

    /**
     * {@code ibv_poll_cq}: takes up to {@code completions.capacity()} completions. Allocates nothing.
     *
     * @return how many entries of {@code completions} are now valid
     */
    public int poll(WorkCompletions completions) {
        // Not entered: the provider guards the call itself (see CompletionVerbs#destroyCq), so a poll pays one
        // guard, not two; a close racing it ends in destroyCq, which waits for it or makes it fail.
        checkOpen();
        try {
            return cqVerbs.pollCq(handle, completions, completions.capacity());
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** {@code ibv_req_notify_cq}: the next (solicited) completion raises an event on the channel. */
    public void requestNotification(boolean solicitedOnly) {
        // Not entered, as poll: the provider guards the call itself.
        checkOpen();
        try {
            cqVerbs.reqNotifyCq(handle, solicitedOnly);
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** Completion events taken from the channel for this CQ and not yet acknowledged. */
    public int unacknowledgedEvents() {
        return unacknowledged.get();
    }

    /**
     * {@code ibv_ack_cq_events}. Acknowledging more than were delivered is refused: libibverbs would
     * count them and make the CQ's destroy wait forever. The events stay counted as unacknowledged
     * unless the native acknowledgement succeeds.
     */
    public void acknowledgeEvents(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("acknowledge at least one event, asked for " + count);
        }
        enter();
        try {
            // Taken before the native call, so that two threads cannot both acknowledge the same events.
            @Nullable EventTaken oldest = takeUnacknowledged(count);
            try {
                cqVerbs.ackCqEvents(handle, count);
            } catch (RuntimeException e) {
                giveBackUnacknowledged(count, oldest);
                throw e instanceof VerbsException v ? v.about(ref().toString()) : e;
            }
        } finally {
            exit();
        }
    }

    /** Undoes {@link #takeUnacknowledged}: the events were not acknowledged, and their run goes on. */
    private void giveBackUnacknowledged(int count, @Nullable EventTaken oldest) {
        if (unacknowledged.getAndAdd(count) == 0 && oldest != null) {
            oldestUnacknowledged.compareAndSet(null, oldest);
        }
    }

    /** Counts {@code count} events as acknowledged; returns the start of their run. */
    private @Nullable EventTaken takeUnacknowledged(int count) {
        for (;;) {
            EventTaken oldest = oldestUnacknowledged.get();
            int n = unacknowledged.get();
            if (count > n) {
                throw new IllegalArgumentException(ref() + " has " + n + " unacknowledged event(s); cannot acknowledge "
                        + count);
            }
            if (unacknowledged.compareAndSet(n, n - count)) {
                if (n == count) {
                    // Only the run read before the count reached zero: an event delivered meanwhile began a new one.
                    oldestUnacknowledged.compareAndSet(oldest, null);
                }
                return oldest;
            }
        }
    }

    void eventDelivered() {
        if (unacknowledged.getAndIncrement() == 0) {
            oldestUnacknowledged.set(new EventTaken(Instant.now(), Thread.currentThread().getName(),
                    traceEventOrigins ? callerStack() : List.of()));
        }
    }

    /**
     * Where the first of the events not yet acknowledged was taken ({@code ibv_get_cq_event}), as a lease
     * records where it was taken: the start of a run of unacknowledged events, which a partial
     * acknowledgement does not end (acknowledgements are counts, not particular events). Empty when every
     * event is acknowledged.
     */
    public Optional<EventTaken> oldestUnacknowledgedEvent() {
        return unacknowledged.get() == 0 ? Optional.empty() : Optional.ofNullable(oldestUnacknowledged.get());
    }

    /**
     * Whether the events delivered from now on record the stack of the thread that took them (leak
     * detection wants it; the event path does not pay for a stack walk otherwise).
     */
    public void traceEventOrigins(boolean trace) {
        traceEventOrigins = trace;
    }

    private static List<StackTraceElement> callerStack() {
        StackTraceElement[] full = new Throwable().getStackTrace();
        // Drop this class and CompletionChannel.awaitEvent: the caller of awaitEvent is what matters.
        int first = 0;
        while (first < full.length && (full[first].getClassName().equals(CompletionQueue.class.getName())
                || full[first].getClassName().equals(CompletionChannel.class.getName()))) {
            first++;
        }
        return List.of(Arrays.copyOfRange(full, first, full.length));
    }

    /**
     * A completion event taken from the channel.
     *
     * @param at when it was taken
     * @param thread the thread that took it
     * @param stack where it was taken, innermost first; empty unless {@link #traceEventOrigins(boolean)} was on
     */
    public record EventTaken(Instant at, String thread, List<StackTraceElement> stack) {
    }

    @Override
    boolean hasOwnHolds() {
        return unacknowledged.get() > 0;
    }

    @Override
    void ownStuckReferences(ResourceRef self, List<StuckReference> out) {
        int n = unacknowledged.get();
        if (n > 0) {
            out.add(new StuckReference(self, ResourceKind.COMPLETION_QUEUE.releaseVerb(), Consequence.BLOCKS_FOREVER,
                    // No blocker: closing the channel resolves nothing (it cannot close before the CQ).
                    null, Cause.UNACKNOWLEDGED_CQ_EVENTS, null, null,
                    self + " has " + n + " completion event(s) not acknowledged (ibv_ack_cq_events): "
                            + "ibv_destroy_cq would block forever"));
        }
    }

    @Override
    List<String> cascadePreparations() {
        List<String> leases = super.cascadePreparations();
        int n = unacknowledged.get();
        if (n == 0) {
            return leases;
        }
        List<String> out = new ArrayList<>(leases);
        out.add("acknowledge " + n + " completion event(s)");
        return out;
    }

    @Override
    void prepareCascade() {
        cascading = true;
        acknowledgeAll();
    }

    private void acknowledgeAll() {
        int n = unacknowledged.getAndSet(0);
        oldestUnacknowledged.set(null);
        if (n > 0) {
            cqVerbs.ackCqEvents(handle, n);
        }
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details(5);
        m.put("entries", capacity());
        m.put("compVector", compVector);
        m.put("channel", channel == null ? "none" : channel.name());
        if (extendedFields != null) {
            m.put("extendedFields", extendedFields.stream().map(Enum::name).sorted().toList());
        }
        m.put("unacknowledgedEvents", unacknowledged.get());
        return m;
    }

    @Override
    CqHandle eventHandle() {
        return handle;
    }

    @Override
    void release() {
        if (channel == null) {
            cqVerbs.destroyCq(handle);
            return;
        }
        // No event may be read for this CQ between the check below and the destroy.
        channel.lockForCqDestroy();
        try {
            if (cascading) {
                acknowledgeAll();
            }
            int n = unacknowledged.get();
            if (n > 0) {
                throw new VerbsException("ibv_destroy_cq", ref().toString(), Errno.EBUSY, n
                        + " completion event(s) arrived while closing and are not acknowledged; acknowledge them "
                        + "and close again (destroying now would block forever)");
            }
            cqVerbs.destroyCq(handle);
        } finally {
            cascading = false;
            channel.unlockAfterCqDestroy();
        }
    }
}
