package io.rdmaverbs.verbs;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.StuckReference.Consequence;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CmChannelHandle;
import io.rdmaverbs.verbs.provider.CmEventHandle;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;

import org.jspecify.annotations.Nullable;

/**
 * A CM event channel ({@code struct rdma_event_channel}, {@code rdma_create_event_channel(3)}): the file
 * descriptor through which the events of its {@link CmId ids} arrive. It has no device context.
 *
 * <p>{@code rdma_destroy_event_channel(3)} requires every id on the channel destroyed and every event
 * acknowledged first, but it is void and never refuses: the kernel would destroy the ids under the
 * application. The graph is the only place that can refuse it, and does, while ids or events live.
 *
 * <p>Waiting works as on a {@link CompletionChannel}: a close wakes the threads in
 * {@link #awaitEvent(Duration)}, which leave with {@link ResourceClosedException}; {@link #wakeWaiters()}
 * makes them return empty. Every event returned is a {@link CmEvent} resource, held until acknowledged.
 */
public final class CmEventChannel extends VerbsResource {

    /** How long, by default, a cascade close of a connected id waits for its {@code RDMA_CM_EVENT_DISCONNECTED}. */
    public static final Duration DEFAULT_DISCONNECT_TIMEOUT = Duration.ofSeconds(2);

    final CmChannelHandle handle;
    final ConnectionVerbs cm;
    /**
     * Held while an event is read and linked into the graph, while an id of this channel is destroyed, and
     * while a librdmacm call reaches an id's QP through {@code id->qp} or creates or destroys that QP
     * ({@link CmId}'s {@code throughQp}). Between {@code rdma_get_cm_event} and the event's link to its id,
     * {@code rdma_destroy_id} of that id would block (the event is held but the graph does not know it
     * yet); and {@code rdma_get_cm_event} itself modifies the QP of the id an event is for (a
     * CONNECT_RESPONSE, a REJECTED), which {@code rdma_destroy_qp} must not free meanwhile. Never held
     * while waiting for an event, so a destroy waits for one read-and-link or one call at most, never for
     * a waiter to be woken.
     */
    private final ReentrantLock eventLock = new ReentrantLock();
    /** Bumped by {@link #wakeWaiters()}: a waiter that saw it change returns empty. */
    private final AtomicLong wakes = new AtomicLong();
    /**
     * Threads inside {@link #awaitEvent(Duration)}, counted over the whole call: the call's in-flight
     * guard is taken per slice, so that a close need not wait a slice, and dips between slices.
     */
    private final AtomicInteger waiting = new AtomicInteger();
    /**
     * Events a closing id's thread read on behalf of the channel's waiters (it reads the channel while
     * waiting for its own DISCONNECTED): handed out by {@link #awaitEvent} first, in arrival order.
     */
    private final ConcurrentLinkedDeque<CmEvent> readAhead = new ConcurrentLinkedDeque<>();
    private volatile Duration disconnectTimeout = DEFAULT_DISCONNECT_TIMEOUT;

    CmEventChannel(Verbs verbs, ConnectionVerbs cm, CmChannelHandle handle, @Nullable String name) {
        super(verbs, ResourceKind.CM_EVENT_CHANNEL, List.of(), name);
        this.handle = handle;
        this.cm = cm;
    }

    /** None: a CM event channel belongs to librdmacm, not to a device. */
    @Override
    public @Nullable DeviceContext context() {
        return null;
    }

    /** The channel's file descriptor ({@code channel->fd}). */
    public int fd() {
        return handle.fd();
    }

    /** {@code rdma_create_id(3)} on this channel; reports name it by kind and number. */
    public CmId createId(CmPortSpace portSpace) {
        return newId(portSpace, null);
    }

    /** {@link #createId(CmPortSpace)}, named {@code name} in reports. */
    public CmId createId(CmPortSpace portSpace, String name) {
        return newId(portSpace, Objects.requireNonNull(name, "name"));
    }

    private CmId newId(CmPortSpace portSpace, @Nullable String name) {
        Objects.requireNonNull(portSpace, "portSpace");
        return verbs.create(this, List.of(this),
                () -> new CmId(this, cm.createId(handle, portSpace), CmIdRole.IDLE, null, name));
    }

    /**
     * How long a {@linkplain ClosePolicy#CASCADE cascade} close of a connected id of this channel waits
     * for {@code RDMA_CM_EVENT_DISCONNECTED} after its {@code rdma_disconnect}, before it destroys the QP
     * and the id anyway.
     */
    public Duration disconnectTimeout() {
        return disconnectTimeout;
    }

    /** Sets {@link #disconnectTimeout()}; zero does not wait. */
    public void disconnectTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("a disconnect timeout must not be negative, was " + timeout);
        }
        this.disconnectTimeout = timeout;
    }

    /**
     * Waits up to {@code timeout} for a CM event ({@code rdma_get_cm_event(3)}). The event is a resource
     * that holds its id (and a CONNECT_REQUEST's listening id): acknowledge it ({@link CmEvent#ack()})
     * once its fields are taken, since {@code rdma_destroy_id} blocks until then. A CONNECT_REQUEST
     * brings a new {@link CmId} in role {@link CmIdRole#PASSIVE}, owned by the caller: accept, reject or
     * close it.
     *
     * @return the event, or empty on timeout or when {@link #wakeWaiters()} was called during the wait
     * @throws ResourceClosedException once the channel is being closed (a close wakes the waiters)
     */
    public Optional<CmEvent> awaitEvent(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        waiting.incrementAndGet();
        try {
            return awaitInSlices(timeout);
        } finally {
            waiting.decrementAndGet();
        }
    }

    private Optional<CmEvent> awaitInSlices(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long woken = wakes.get();
        do {
            long remainingMillis = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            long slice = Math.min(remainingMillis, CompletionChannel.WAIT_SLICE_MILLIS);
            enter();
            try {
                CmEvent event = readAhead.poll();
                if (event == null && wakes.get() == woken && cm.awaitEventReady(handle, slice)) {
                    event = readNow();
                }
                if (event == null) {
                    // A closing id's thread may have read it for us meanwhile.
                    event = readAhead.poll();
                }
                if (event != null) {
                    return Optional.of(event);
                }
                if (wakes.get() != woken || Thread.currentThread().isInterrupted()) {
                    return Optional.empty();
                }
            } catch (VerbsException e) {
                throw e.about(ref().toString());
            } finally {
                exit();
            }
        } while (System.nanoTime() < deadline);
        return Optional.empty();
    }

    /**
     * Makes the threads waiting in {@link #awaitEvent(Duration)} return empty promptly instead of at their
     * timeout (one that gets an event meanwhile returns it). Safe from any thread; does nothing once the
     * channel is closing, since the close wakes them itself.
     */
    public void wakeWaiters() {
        wakes.incrementAndGet();
        wakeWaitersIfOpen();
    }

    /** The number of threads waiting in {@link #awaitEvent(Duration)} now. */
    public int waiters() {
        return waiting.get();
    }

    // ---- reading events ---------------------------------------------------------------------------

    /**
     * Reads the event {@link ConnectionVerbs#awaitEventReady} saw, under {@link #eventLock}, and links it
     * into the graph; the read does not block. Null when another thread read it first, or when it cannot
     * be linked because its id (or this channel) is being closed: it is then followed (the id's role) and
     * acknowledged at once, and a CONNECT_REQUEST that cannot be handed out is rejected.
     */
    private @Nullable CmEvent readNow() {
        eventLock.lock();
        try {
            CmEventHandle h = cm.getEvent(handle, 0);
            return h == null ? null : link(h);
        } finally {
            eventLock.unlock();
        }
    }

    private @Nullable CmEvent link(CmEventHandle h) {
        if (h.type() == CmEventType.CONNECT_REQUEST) {
            return linkRequest(h);
        }
        if (!(verbs.resourceOf(h.id()) instanceof CmId id)) {
            cm.ackEvent(h);
            throw new IllegalStateException(ref() + " delivered " + h.describe() + " for a CM id the graph does not know");
        }
        id.eventArrived(h.type());
        try {
            return verbs.create(id, List.of(this, id), () -> {
                id.adoptContextIfResolved();
                return new CmEvent(this, id, null, h);
            });
        } catch (ResourceClosedException closing) {
            cm.ackEvent(h);
            return null;
        } catch (RuntimeException | Error failed) {
            // Read but not linked (the first adoption of librdmacm's context failed: ibv_query_device, an
            // eventfd): unacknowledged, it would make the id's rdma_destroy_id(3) block forever, and nothing
            // in the graph could acknowledge it. Acknowledged here; the failure is the reader's.
            cm.ackEvent(h);
            throw failed;
        }
    }

    /**
     * A CONNECT_REQUEST: a new passive id, which the event and its listening id hold until answered. One that
     * cannot be handed out (the listener or this channel closing, or its link failing) is rejected and
     * acknowledged, and its id destroyed: through the graph when the passive id was registered already.
     */
    private @Nullable CmEvent linkRequest(CmEventHandle h) {
        CmId[] registered = new CmId[1];
        RuntimeException failure = null;
        if (verbs.resourceOf(h.listenId()) instanceof CmId listener) {
            try {
                return verbs.create(listener, List.of(this, listener), () -> {
                    CmId passive = new CmId(this, h.id(), CmIdRole.PASSIVE, listener, null);
                    verbs.register(passive);
                    registered[0] = passive;
                    passive.adoptContextIfResolved();
                    listener.requestArrived(passive);
                    return new CmEvent(this, passive, listener, h);
                });
            } catch (ResourceClosedException closing) {
                // The listener or the channel is closing: nobody can answer this request any more.
            } catch (RuntimeException failed) {
                failure = failed;
            }
        }
        try {
            cm.reject(h.id(), new byte[0]);
        } catch (VerbsException e) {
            // The requester then learns of it from the destroy below (its REJ) or its own timeout.
        }
        cm.ackEvent(h);
        CmId passive = registered[0];
        if (passive == null) {
            cm.destroyId(h.id());
        } else {
            try {
                passive.close(ClosePolicy.CASCADE);
            } catch (RuntimeException left) {
                if (failure == null) {
                    throw left;
                }
                failure.addSuppressed(left);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return null;
    }

    /**
     * Reads one event for a closing id's thread waiting for its own DISCONNECTED ({@code closer}): an event
     * of another id is kept for this channel's waiters, one of {@code closer} acknowledged. Reads only when
     * this thread may: the channel open, or being closed by this very thread (a cascade from the channel).
     *
     * @return false when the channel cannot be read by this thread (closed, or being closed by another)
     */
    boolean readFor(CmId closer, long sliceMillis) {
        boolean entered = tryEnter();
        if (!entered && !Thread.holdsLock(lifetime)) {
            return false;
        }
        try {
            if (!cm.awaitEventReady(handle, sliceMillis)) {
                return !Thread.currentThread().isInterrupted();
            }
            CmEvent event = readNow();
            if (event == null) {
                return true;
            }
            if (event.cmId() == closer) {
                event.close(ClosePolicy.CASCADE);
            } else {
                readAhead.add(event);
                // A waiter in awaitEventReady would not see it before its slice ends otherwise.
                wakeWaitersIfOpen();
            }
            return true;
        } finally {
            if (entered) {
                exit();
            }
        }
    }

    /** An event acknowledged before anyone took it from {@link #readAhead}. */
    void forget(CmEvent event) {
        readAhead.remove(event);
    }

    /**
     * Takes {@link #eventLock} for the destroy of one of this channel's ids, or for a call that reaches an
     * id's QP, until {@link #unlockIds()}: it waits for one read-and-link at most, and wakes nobody (the
     * waiters wait outside the lock).
     */
    void lockIds() {
        eventLock.lock();
    }

    void unlockIds() {
        eventLock.unlock();
    }

    // ---- the graph --------------------------------------------------------------------------------

    /**
     * {@code rdma_destroy_event_channel(3)} is void: with an id or an event left, the kernel destroys
     * the ids under the application (a connected one disconnects its peer) and drops the events, and
     * nothing says so.
     */
    @Override
    StuckReference dependentReference(ResourceRef self, VerbsResource d) {
        boolean event = d instanceof CmEvent;
        return new StuckReference(self, releaseVerb(), Consequence.LEAKS, null,
                event ? Cause.UNACKNOWLEDGED_CM_EVENTS : Cause.DEPENDENT_RESOURCE, d.ref(), null,
                self + " still has " + (event ? "the unacknowledged event " : "") + d.ref()
                        + ": rdma_destroy_event_channel is void and would not refuse, the kernel would "
                        + (event ? "drop the event" : "destroy the id under the application and its rdma_cm_id would leak")
                        + " (rdma_destroy_event_channel(3)); " + (event ? "acknowledge it" : "close it") + " first");
    }

    @Override
    void wakeProviderWaiters() {
        cm.wakeEventWaiters(handle);
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("fd", handle.fd());
        m.put("waiters", waiters());
        m.put("disconnectTimeout", disconnectTimeout.toString());
        return m;
    }

    @Override
    void release() {
        cm.destroyEventChannel(handle);
        readAhead.clear();
    }
}
