package io.rdmaverbs.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.StuckReference.Consequence;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

import org.jspecify.annotations.Nullable;

/**
 * A verbs object in the resource graph. Children hold their parents (a parent can never be released
 * under a child) and each parent knows its live dependents, so that every resource can say, without
 * touching native code, whether its release would fail now and why ({@link #stuckReferences()}).
 *
 * <p>Lifetime is guarded in Java: every operation enters the resource (a counted, lock-free
 * acquisition that fails once a close has begun), and a close first stops new entries, waits for
 * those in flight, and only then calls the release verb. So a closed handle never reaches native code,
 * from any thread. A release that fails natively leaves the resource open and retryable; close is
 * idempotent.
 */
public abstract sealed class VerbsResource implements AutoCloseable
        permits DeviceContext, ProtectionDomain, XrcDomain, CompletionChannel, CompletionQueue, SharedReceiveQueue,
        QueuePair, XrcReceiveQpRegistration, MemoryRegion, AddressHandle, MulticastAttachment {

    private static final int CLOSING = 1 << 29;
    private static final int CLOSED = 1 << 30;
    private static final int IN_FLIGHT = CLOSING - 1;
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final VarHandle STATE;
    private static final VarHandle DEPENDENTS;
    private static final VarHandle LEASES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(VerbsResource.class, "state", int.class);
            DEPENDENTS = lookup.findVarHandle(VerbsResource.class, "dependents", Set.class);
            LEASES = lookup.findVarHandle(VerbsResource.class, "leases", Set.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** CLOSING and CLOSED bits, and the number of operations in flight. */
    private volatile int state;
    private volatile @Nullable String endedBecause;

    final Verbs verbs;
    private final long id;
    private final ResourceKind kind;
    private final List<VerbsResource> parents;
    /*
     * Most resources never get a dependent or a lease: both sets are created on first use (a graph of
     * 100k resources is made mostly of leaves), and read as empty until then.
     */
    private volatile @Nullable Set<VerbsResource> dependents;
    private volatile @Nullable Set<Lease> leases;
    private final Object closeLock = new Object();
    private final Instant createdAt = Instant.now();
    /** The user's name; {@code null} until given, the generated {@code pd#3} is built on demand. */
    private volatile @Nullable String name;

    VerbsResource(Verbs verbs, ResourceKind kind, List<VerbsResource> parents, @Nullable String name) {
        this.verbs = verbs;
        this.id = verbs.nextId();
        this.kind = kind;
        this.parents = List.copyOf(parents);
        this.name = name != null && !name.isBlank() ? name : null;
    }

    // ---- identity -------------------------------------------------------------------------------

    public final long id() {
        return id;
    }

    public final ResourceKind kind() {
        return kind;
    }

    public final String name() {
        String n = name;
        return n != null ? n : kind.shortName() + "#" + id;
    }

    /** Gives the resource the name reports use (a bean name, a configuration key). */
    public final void name(String newName) {
        if (newName.isBlank()) {
            throw new IllegalArgumentException("a resource name must not be blank");
        }
        this.name = newName;
    }

    public final Instant createdAt() {
        return createdAt;
    }

    /** The device context this resource lives in (itself, for a context). */
    public abstract DeviceContext context();

    public final ResourceRef ref() {
        return new ResourceRef(id, kind, name(), context().device().name());
    }

    /** The resources this one was created on; they cannot be released while it lives. */
    public final List<VerbsResource> parents() {
        return parents;
    }

    /** The live resources created on this one, which must be released first. */
    public final List<VerbsResource> dependents() {
        Set<VerbsResource> set = dependents;
        if (set == null || set.isEmpty()) {
            return List.of();
        }
        List<VerbsResource> list = new ArrayList<>(set);
        list.sort((a, b) -> Long.compare(a.id, b.id));
        return list;
    }

    public final boolean isOpen() {
        return (state & (CLOSING | CLOSED)) == 0;
    }

    public final boolean isClosed() {
        return (state & CLOSED) != 0;
    }

    /** Attributes for reports (entries, QP number, lkey...), in a stable order. */
    public abstract java.util.Map<String, Object> details();

    @Override
    public final String toString() {
        return ref().toString();
    }

    // ---- leases ---------------------------------------------------------------------------------

    /**
     * Declares that {@code holder} is using this resource until the lease is closed. A strict close is
     * refused meanwhile, and reports the holder with the stack that took the lease.
     */
    public final Lease lease(String holder) {
        Objects.requireNonNull(holder, "holder");
        enter();
        try {
            Lease lease = new Lease(this, holder);
            leaseSet().add(lease);
            return lease;
        } finally {
            exit();
        }
    }

    /** The leases held now, oldest first. */
    public final List<Lease> leases() {
        Set<Lease> set = leases;
        if (set == null || set.isEmpty()) {
            return List.of();
        }
        List<Lease> list = new ArrayList<>(set);
        list.sort((a, b) -> a.since().compareTo(b.since()));
        return list;
    }

    final void leaseEnded(Lease lease) {
        Set<Lease> set = leases;
        if (set != null) {
            set.remove(lease);
        }
    }

    @SuppressWarnings("unchecked")
    private Set<Lease> leaseSet() {
        Set<Lease> set = leases;
        if (set == null) {
            LEASES.compareAndSet(this, null, ConcurrentHashMap.newKeySet());
            set = (Set<Lease>) LEASES.getVolatile(this);
        }
        return set;
    }

    @SuppressWarnings("unchecked")
    private Set<VerbsResource> dependentSet() {
        Set<VerbsResource> set = dependents;
        if (set == null) {
            DEPENDENTS.compareAndSet(this, null, ConcurrentHashMap.newKeySet());
            set = (Set<VerbsResource>) DEPENDENTS.getVolatile(this);
        }
        return set;
    }

    // ---- stuck references -----------------------------------------------------------------------

    /**
     * Everything that would make the release of this resource fail, hang, leak or break a borrower if
     * it were attempted now. Empty means a strict close would go ahead. Computed from the graph alone.
     */
    public final List<StuckReference> stuckReferences() {
        // Most resources hold nothing when closed: answer that without building a ref or a list, since a
        // strict close asks twice.
        Set<VerbsResource> ds = dependents;
        Set<Lease> ls = leases;
        if ((ds == null || ds.isEmpty()) && (ls == null || ls.isEmpty()) && !hasOwnHolds()) {
            return List.of();
        }
        List<StuckReference> out = new ArrayList<>();
        ResourceRef self = ref();
        for (VerbsResource d : dependents()) {
            out.add(dependentReference(self, d));
        }
        ownStuckReferences(self, out);
        for (Lease l : leases()) {
            out.add(new StuckReference(self, kind.releaseVerb(), Consequence.BREAKS_LEASE, null, Cause.LEASE, null, l,
                    self + " is leased by '" + l.holder() + "' (thread " + l.thread() + ") since " + l.since()
                            + ", taken at " + firstFrame(l)));
        }
        return out;
    }

    /** How the release verb reacts to a live dependent: EBUSY for everything but a device context. */
    StuckReference dependentReference(ResourceRef self, VerbsResource d) {
        Cause cause = switch (d) {
            case MulticastAttachment m -> Cause.MULTICAST_ATTACHMENT;
            case XrcReceiveQpRegistration x -> Cause.XRC_RECEIVE_QP_REGISTRATION;
            // Creating an XRC receive QP registers the creating process with it, too.
            case QueuePair q when q.type() == io.rdmaverbs.verbs.attr.QpType.XRC_RECV ->
                    Cause.XRC_RECEIVE_QP_REGISTRATION;
            default -> Cause.DEPENDENT_RESOURCE;
        };
        String what = switch (cause) {
            case MULTICAST_ATTACHMENT -> "is attached to multicast group " + d.name();
            case XRC_RECEIVE_QP_REGISTRATION -> "has this process registered on its XRC receive QP " + d.name();
            default -> "is still used by " + d.ref();
        };
        return new StuckReference(self, kind.releaseVerb(), Consequence.FAILS, Errno.EBUSY, cause, d.ref(), null,
                self + " " + what + ": " + kind.releaseVerb() + " would fail with EBUSY");
    }

    /** Kind-specific reasons (unacknowledged CQ events); none by default. */
    void ownStuckReferences(ResourceRef self, List<StuckReference> out) {
    }

    /** Whether {@link #ownStuckReferences} would add anything; must agree with it. */
    boolean hasOwnHolds() {
        return false;
    }

    /** What a cascade close does before releasing this resource, in words; nothing by default. */
    List<String> cascadePreparations() {
        List<String> out = new ArrayList<>();
        for (Lease l : leases()) {
            out.add("revoke the lease held by '" + l.holder() + "' since " + l.since());
        }
        return out;
    }

    /** Clears kind-specific holds before a cascade release (acknowledge CQ events). */
    void prepareCascade() {
    }

    private static String firstFrame(Lease l) {
        List<StackTraceElement> stack = l.stack();
        return stack.isEmpty() ? "(no stack)" : stack.getFirst().toString();
    }

    // ---- guarded use ----------------------------------------------------------------------------

    /**
     * Enters the resource for one operation. Fails, without touching native code, once a close has
     * begun. Every successful enter must be paired with {@link #exit()}.
     */
    final void enter() {
        for (;;) {
            int s = state;
            if ((s & (CLOSING | CLOSED)) != 0) {
                throw closedException(s);
            }
            if ((s & IN_FLIGHT) == IN_FLIGHT) {
                throw new IllegalStateException(this + ": too many concurrent operations");
            }
            if (STATE.weakCompareAndSet(this, s, s + 1)) {
                return;
            }
        }
    }

    final void exit() {
        STATE.getAndAdd(this, -1);
    }

    /** {@link #enter()}, but false instead of an exception once a close has begun. */
    final boolean tryEnter() {
        for (;;) {
            int s = state;
            if ((s & (CLOSING | CLOSED)) != 0 || (s & IN_FLIGHT) == IN_FLIGHT) {
                return false;
            }
            if (STATE.weakCompareAndSet(this, s, s + 1)) {
                return true;
            }
        }
    }

    /** The number of operations in flight now (blocked channel waiters among them). */
    final int inFlight() {
        return state & IN_FLIGHT;
    }

    private ResourceClosedException closedException(int s) {
        String why = endedBecause;
        String st = (s & CLOSED) != 0 ? "closed" : "being closed";
        return new ResourceClosedException(ref(), why != null ? st + " (" + why + ")" : st);
    }

    final void checkOpen() {
        int s = state;
        if ((s & (CLOSING | CLOSED)) != 0) {
            throw closedException(s);
        }
    }

    // ---- close ----------------------------------------------------------------------------------

    /** A strict close: refused (touching nothing) while anything holds the resource. Idempotent. */
    @Override
    public final void close() {
        close(ClosePolicy.STRICT);
    }

    /**
     * Closes this resource under {@code policy}; with {@link ClosePolicy#CASCADE}, its dependents first.
     * Idempotent. On a native failure the resource stays open and the close can be retried.
     *
     * @throws CloseRefusedException when STRICT (or ATTEMPT, for a hang or leak) refuses
     * @throws VerbsException when the release verb fails natively
     */
    public final void close(ClosePolicy policy) {
        synchronized (closeLock) {
            if (isClosed()) {
                return;
            }
            // Checked before anything is touched (a refusal must leave the resource usable), and again
            // once new operations are shut out: a creation in flight may have added a dependent.
            if (policy != ClosePolicy.CASCADE) {
                refuseIfStuck(policy);
            }
            beginClosing();
            boolean released = false;
            List<StuckReference> predicted = List.of();
            try {
                switch (policy) {
                    case STRICT -> refuseIfStuck(policy);
                    case ATTEMPT -> predicted = refuseIfStuck(policy);
                    case CASCADE -> {
                        // Newest first, as try-with-resources would; each dependent cascades its own.
                        for (VerbsResource d : dependents().reversed()) {
                            d.close(ClosePolicy.CASCADE);
                        }
                        prepareCascade();
                        for (Lease l : leases()) {
                            l.revoke();
                        }
                    }
                }
                try {
                    release();
                } catch (VerbsException e) {
                    VerbsException failure = withPrediction(e, predicted);
                    verbs.fireCloseFailed(this, failure);
                    throw failure;
                }
                released = true;
            } finally {
                if (released) {
                    markClosed(null);
                } else {
                    endClosing();
                }
            }
            // ATTEMPT only: the kernel released it under live dependents (ibv_close_device does).
            for (VerbsResource d : dependents()) {
                d.markDefunct("its " + kind.shortName() + " " + name() + " was released under it");
            }
            verbs.fireClosed(this);
        }
    }

    private List<StuckReference> refuseIfStuck(ClosePolicy policy) {
        List<StuckReference> stuck = stuckReferences();
        List<StuckReference> refusing = policy == ClosePolicy.ATTEMPT
                ? stuck.stream().filter(s -> s.consequence() != Consequence.FAILS).toList()
                : stuck;
        if (!refusing.isEmpty()) {
            ClosePlan plan = new ClosePlan(policy, List.of(new ClosePlan.Step(ref(), kind.releaseVerb(), List.of())),
                    refusing);
            CloseRefusedException refusal = new CloseRefusedException(kind.releaseVerb(), ref(), plan);
            verbs.fireCloseRefused(this, refusal);
            throw refusal;
        }
        return stuck;
    }

    private VerbsException withPrediction(VerbsException e, List<StuckReference> predicted) {
        VerbsException named = e.about(ref().toString());
        if (predicted.isEmpty()) {
            return named;
        }
        return new VerbsException(named.verb(), named.resource(), named.errno(), named.reason()
                + " (the graph predicted: " + predicted.getFirst().message() + ")", e);
    }

    /** Calls the release verb through the provider. */
    abstract void release();

    /**
     * Wakes the threads blocked in this resource's provider-level waits (a channel's or context's event
     * waits); nothing by default. Only called while the native object is alive: from
     * {@link #wakeWaitersIfOpen()}, or by a close once it has shut out new operations and before it waits
     * for those in flight, so that the close does not wait for their timeout.
     */
    void wakeProviderWaiters() {
    }

    /** {@link #wakeProviderWaiters()} unless a close has begun (the close wakes them itself); never throws. */
    final void wakeWaitersIfOpen() {
        if (!tryEnter()) {
            return;
        }
        try {
            wakeQuietly();
        } finally {
            exit();
        }
    }

    private void wakeQuietly() {
        try {
            wakeProviderWaiters();
        } catch (RuntimeException e) {
            // Best effort: a waiter the wake did not reach looks again within a slice.
        }
    }

    private void beginClosing() {
        for (;;) {
            int s = state;
            if (STATE.compareAndSet(this, s, s | CLOSING)) {
                break;
            }
        }
        // Shut out of enter() now, but not yet released: the waiters leave with ResourceClosedException.
        wakeQuietly();
        long deadline = System.nanoTime() + DRAIN_TIMEOUT_NANOS;
        int spins = 0;
        while ((state & IN_FLIGHT) != 0) {
            if (System.nanoTime() > deadline) {
                int n = state & IN_FLIGHT;
                endClosing();
                throw new VerbsException(kind.releaseVerb(), ref().toString(), Errno.EBUSY,
                        n + " operation(s) still in flight after 10 s; stop the threads using it first");
            }
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(200_000);
            }
        }
    }

    private void endClosing() {
        for (;;) {
            int s = state;
            if (STATE.compareAndSet(this, s, s & ~CLOSING)) {
                return;
            }
        }
    }

    private void markClosed(@Nullable String because) {
        endedBecause = because;
        for (;;) {
            int s = state;
            if (STATE.compareAndSet(this, s, (s & ~CLOSING) | CLOSED)) {
                break;
            }
        }
        for (Lease l : leases()) {
            l.revoke();
        }
        for (VerbsResource p : parents) {
            Set<VerbsResource> siblings = p.dependents;
            if (siblings != null) {
                siblings.remove(this);
            }
        }
        verbs.unregister(this);
    }

    /** Marks a resource whose native object is gone without its own release verb. */
    final void markDefunct(String because) {
        if (isClosed()) {
            return;
        }
        for (VerbsResource d : dependents()) {
            d.markDefunct(because);
        }
        markClosed("defunct: " + because);
        verbs.fireClosed(this);
    }

    // ---- graph wiring ---------------------------------------------------------------------------

    /** Called once the native object exists: links this resource under its parents. */
    final void attach() {
        for (VerbsResource p : parents) {
            p.dependentSet().add(this);
        }
    }
}
