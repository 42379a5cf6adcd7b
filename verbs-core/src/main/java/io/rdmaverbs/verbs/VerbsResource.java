package io.rdmaverbs.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.StuckReference.Consequence;
import io.rdmaverbs.verbs.provider.Handle;
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
 * from any thread. The data path is the exception (poll and notify, post of one request or a batch to
 * a QP or SRQ, an extended CQ's batch, a {@code ibv_qp_ex} session): it only checks the resource open, and
 * the provider guards the call itself, once (the FFM provider: a guard per buffer or request and CQ or
 * QP, biased to the thread that uses it, in place of the linker's acquire of the memory's arena), and
 * its release verb waits for the calls in flight first. A release that fails natively leaves the
 * resource open and retryable; close is idempotent.
 */
public abstract sealed class VerbsResource implements AutoCloseable
        permits DeviceContext, ProtectionDomain, XrcDomain, CompletionChannel, CompletionQueue, SharedReceiveQueue,
        QueuePair, XrcReceiveQpRegistration, MemoryRegion, AddressHandle, MulticastAttachment, CmEventChannel, CmId,
        CmEvent, RemoteRegion {

    private static final VarHandle DEPENDENTS;
    private static final VarHandle LEASES;
    private static final VarHandle PARENTS;
    private static final VerbsResource[] NO_DEPENDENTS = {};
    /** The end of each kind's EBUSY sentence, worded once. */
    private static final Map<ResourceKind, String> WOULD_FAIL = new EnumMap<>(ResourceKind.class);
    /** The message of a dependent's hold on the resource it was created on. */
    private static final StuckReference.Wording STILL_USED = s -> s.resource().sentence(" is still used by ",
            Objects.requireNonNull(s.blocker()), WOULD_FAIL.get(s.resource().kind()));

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            DEPENDENTS = lookup.findVarHandle(VerbsResource.class, "dependents", Dependents.class);
            LEASES = lookup.findVarHandle(VerbsResource.class, "leases", Set.class);
            PARENTS = lookup.findVarHandle(VerbsResource.class, "parents", List.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        for (ResourceKind k : ResourceKind.values()) {
            WOULD_FAIL.put(k, ": " + k.releaseVerb() + " would fail with EBUSY");
        }
    }

    /** Entries, exits and the close state; its monitor serializes closes (see {@link Teardown}). */
    final LifetimeGuard lifetime = new LifetimeGuard();
    final Verbs verbs;
    private final long id;
    private final ResourceKind kind;
    /** Replaced, never mutated: a CM id gains its adopted device context once it has one. */
    private volatile List<VerbsResource> parents;
    /*
     * Most resources never get a dependent or a lease: both sets are created on first use (a graph of
     * 100k resources is made mostly of leaves), and read as empty until then. Dependents are kept in id
     * order, so that no report sorts them: a context's are every resource of its device.
     */
    private volatile @Nullable Dependents dependents;
    private volatile @Nullable Set<Lease> leases;
    private final Instant createdAt = Instant.now();
    /** The user's name; {@code null} until given (never again after), the generated {@code pd#3} is built on demand. */
    private volatile @Nullable String name;
    /**
     * The last {@link #ref()} built, reused while it still names the resource and its device (see
     * {@link #ref()}): reports ask for the refs of every resource and dependent, many times a second.
     */
    private volatile @Nullable ResourceRef ref;

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
        if (n != null) {
            return n;
        }
        // Never named, so never named before either: a ref built earlier holds the generated name.
        ResourceRef r = ref;
        return r != null ? r.name() : kind.shortName() + "#" + id;
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

    /**
     * The device context this resource lives in (itself, for a context); {@code null} for the CM objects
     * that have none: an event channel, an id not yet bound or resolved ({@code id->verbs} is NULL).
     */
    public abstract @Nullable DeviceContext context();

    /**
     * The resource's ref as of now. The one built last is returned while its name is this very name
     * string and it names a device: a rename makes the next call build a new one, and so does a CM id's
     * context resolved after a ref without one. (A resource's device never changes once it has one, a CM
     * id gains its context once, and the release verb is fixed at creation.) Checking rather than
     * invalidating keeps a ref built from a name being replaced from outliving the new name.
     */
    public final ResourceRef ref() {
        ResourceRef r = ref;
        String n = name;
        if (r != null && (n == null || r.name() == n) && r.device() != ResourceRef.NO_DEVICE) {
            return r;
        }
        DeviceContext ctx = context();
        String device = ctx == null ? ResourceRef.NO_DEVICE : ctx.device().name();
        if (r != null && (n == null || r.name() == n) && r.device() == device) {
            return r;
        }
        r = new ResourceRef(id, kind, n != null ? n : kind.shortName() + "#" + id, device, releaseVerb());
        ref = r;
        return r;
    }

    /** The verb this resource's release calls; its kind's, unless the resource says otherwise. */
    String releaseVerb() {
        return kind.releaseVerb();
    }

    /** The resources this one was created on; they cannot be released while it lives. */
    public final List<VerbsResource> parents() {
        return parents;
    }

    /** The live resources created on this one, which must be released first, oldest first. */
    public final List<VerbsResource> dependents() {
        VerbsResource[] now = dependentArray();
        return now.length == 0 ? List.of() : Collections.unmodifiableList(Arrays.asList(now));
    }

    /** How many {@link #dependents()} there are now, without copying them. */
    public final int dependentCount() {
        Dependents ds = dependents;
        return ds == null ? 0 : ds.size();
    }

    /** {@link #dependents()} as an array of its own, for the graph's walks. */
    final VerbsResource[] dependentArray() {
        Dependents ds = dependents;
        return ds == null ? NO_DEPENDENTS : ds.snapshot();
    }

    public final boolean isOpen() {
        return lifetime.isOpen();
    }

    public final boolean isClosed() {
        return lifetime.isClosed();
    }

    /** Attributes for reports (entries, QP number, lkey...), in a stable order. */
    public abstract Map<String, Object> details();

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

    private Dependents dependentSet() {
        Dependents ds = dependents;
        if (ds == null) {
            DEPENDENTS.compareAndSet(this, null, new Dependents());
            ds = (Dependents) DEPENDENTS.getVolatile(this);
        }
        return ds;
    }

    // ---- stuck references -----------------------------------------------------------------------

    /**
     * Everything that would make the release of this resource fail, hang, leak or break a borrower if
     * it were attempted now. Empty means a strict close would go ahead. Computed from the graph alone.
     */
    public final List<StuckReference> stuckReferences() {
        // Most resources hold nothing when closed: answer that without a list, since a strict close asks twice.
        if (holdsNothing()) {
            return List.of();
        }
        List<StuckReference> out = new ArrayList<>();
        addStuckReferences(out);
        return out;
    }

    /**
     * How many {@link #stuckReferences()} would list now, without wording them: one per live dependent,
     * and the resource's own holds and leases. For checks that count them, over every resource of a
     * device.
     */
    public final int stuckReferenceCount() {
        int n = dependentCount();
        Set<Lease> ls = leases;
        if (ls != null) {
            n += ls.size();
        }
        if (hasOwnHolds()) {
            List<StuckReference> own = new ArrayList<>();
            ownStuckReferences(ref(), own);
            n += own.size();
        }
        return n;
    }

    private boolean holdsNothing() {
        Set<Lease> ls = leases;
        return dependentCount() == 0 && (ls == null || ls.isEmpty()) && !hasOwnHolds();
    }

    /** Adds {@link #stuckReferences()} to {@code out}: what the graph's reports gather from every resource. */
    final void addStuckReferences(List<StuckReference> out) {
        addStuckReferences(out, dependentArray());
    }

    /** {@link #addStuckReferences(List)}, with the dependents a walk of the graph has just read. */
    final void addStuckReferences(List<StuckReference> out, VerbsResource[] dependents) {
        Set<Lease> ls = leases;
        if (dependents.length == 0 && (ls == null || ls.isEmpty()) && !hasOwnHolds()) {
            return;
        }
        ResourceRef self = ref();
        for (VerbsResource d : dependents) {
            out.add(dependentReference(self, d));
        }
        ownStuckReferences(self, out);
        for (Lease l : leases()) {
            out.add(new StuckReference(self, kind.releaseVerb(), Consequence.BREAKS_LEASE, null, Cause.LEASE, null, l,
                    self + " is leased by '" + l.holder() + "' (thread " + l.thread() + ") since " + l.since()
                            + ", taken at " + firstFrame(l)));
        }
    }

    /**
     * How this resource's release verb reacts to the live dependent {@code d}, which says how it holds
     * it ({@link #holdOn}): EBUSY for everything but a device context.
     */
    StuckReference dependentReference(ResourceRef self, VerbsResource d) {
        Hold hold = d.holdOn(this);
        ResourceRef blocker = d.ref();
        String verb = kind.releaseVerb();
        if (hold == Hold.CREATED_ON) {
            return new StuckReference(self, verb, Consequence.FAILS, Errno.EBUSY, hold.cause(), blocker, STILL_USED);
        }
        String outcome = hold.errno() == Errno.EBUSY && hold.consequence() == Consequence.FAILS
                ? WOULD_FAIL.get(kind) : ": " + verb + " " + hold.outcome();
        return new StuckReference(self, verb, hold.consequence(), hold.errno(), hold.cause(), blocker, null,
                self + " " + hold.words() + outcome);
    }

    /**
     * How this resource, while it lives, holds {@code parent} (one of {@link #parents()}): by default as a
     * resource created on it ({@link Hold#CREATED_ON}); kinds whose hold has a name of its own (a multicast
     * attachment, an XRC receive QP registration) say so.
     */
    Hold holdOn(VerbsResource parent) {
        return Hold.CREATED_ON;
    }

    /**
     * A dependent's hold on its parent.
     *
     * @param cause the kind of hold
     * @param words what the parent suffers, as the predicate of a sentence about it; for {@link #CREATED_ON},
     *     "is still used by" the dependent, worded by {@link #dependentReference}
     * @param consequence what the parent's release verb would do
     * @param errno the errno it would fail with, for {@link Consequence#FAILS}
     * @param outcome that, as the predicate of a sentence about the verb
     */
    record Hold(Cause cause, String words, Consequence consequence, @Nullable Errno errno, String outcome) {
        /** A resource created on its parent. */
        static final Hold CREATED_ON = new Hold(Cause.DEPENDENT_RESOURCE, "is still used by its dependent");

        /** A hold that makes the parent's release fail with EBUSY. */
        Hold(Cause cause, String words) {
            this(cause, words, Consequence.FAILS, Errno.EBUSY, "would fail with EBUSY");
        }
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
        List<Lease> held = leases();
        if (held.isEmpty()) {
            return List.of();
        }
        List<String> out = new ArrayList<>(held.size());
        for (Lease l : held) {
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
        if (!lifetime.tryEnter()) {
            throw lifetime.isOpen() ? new IllegalStateException(this + ": too many concurrent operations")
                    : closedException();
        }
    }

    final void exit() {
        lifetime.exit();
    }

    /** {@link #enter()}, but false instead of an exception once a close has begun. */
    final boolean tryEnter() {
        return lifetime.tryEnter();
    }

    /** The number of operations in flight now (blocked channel waiters among them). */
    final int inFlight() {
        return lifetime.inFlight();
    }

    private ResourceClosedException closedException() {
        String why = lifetime.closedBecause();
        String st = lifetime.isClosed() ? "closed" : "being closed";
        return new ResourceClosedException(ref(), why != null ? st + " (" + why + ")" : st);
    }

    final void checkOpen() {
        if (!lifetime.isOpen()) {
            throw closedException();
        }
    }

    /**
     * For the data-path calls that {@link #checkOpen() check} instead of entering (their provider guards
     * the call, so that it pays one guard): the provider's refusal of a handle a racing close is destroying
     * is this resource's {@link ResourceClosedException}; any other refusal stands.
     */
    final IllegalStateException closedOr(IllegalStateException refusal) {
        return lifetime.isOpen() ? refusal : closedException();
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
        Teardown.under(policy).close(this);
    }

    /** Calls the release verb through the provider. */
    abstract void release();

    /**
     * Frees what the resource owned besides its native object (a region's allocated memory); called once
     * the release verb succeeded and the resource is closed. Nothing by default.
     */
    void freeOwned() {
    }

    /**
     * The handle events name this resource by (CQ events; QP, CQ and SRQ async events), or null for
     * kinds no event names: only those are indexed.
     */
    @Nullable Handle eventHandle() {
        return null;
    }

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

    /**
     * Shuts out new operations and waits for those in flight (the waiters leave with
     * {@link ResourceClosedException} once woken); called by {@link Teardown} under the close monitor.
     */
    final void beginClosing() {
        int stillInFlight = lifetime.beginClosing(this::wakeQuietly);
        if (stillInFlight > 0) {
            throw new VerbsException(kind.releaseVerb(), ref().toString(), Errno.EBUSY,
                    stillInFlight + " operation(s) still in flight after 10 s; stop the threads using it first");
        }
    }

    /** The native object is gone: unlinks the resource from the graph and revokes its leases. */
    final void markClosed(@Nullable String because) {
        lifetime.markClosed(because);
        for (Lease l : leases()) {
            l.revoke();
        }
        for (VerbsResource p : parents) {
            Dependents siblings = p.dependents;
            if (siblings != null) {
                siblings.remove(this);
            }
        }
        verbs.unregister(this);
    }

    // ---- graph wiring ---------------------------------------------------------------------------

    /** Called once the native object exists: links this resource under its parents. */
    final void attach() {
        for (VerbsResource p : parents) {
            p.dependentSet().add(this);
        }
    }

    /**
     * Links this live resource under one more parent: a CM id under the device context librdmacm
     * resolved it to. The caller has entered both, so neither can be released meanwhile. Never under the
     * {@link #lifetime} monitor: a close holds it while it waits for the operations in flight, and the
     * caller is one of them (an event of the id linked as the id's close begins).
     */
    final void addParent(VerbsResource parent) {
        List<VerbsResource> now;
        List<VerbsResource> more;
        do {
            now = parents;
            if (now.contains(parent)) {
                return;
            }
            more = new ArrayList<>(now);
            more.add(parent);
        } while (!PARENTS.compareAndSet(this, now, List.copyOf(more)));
        parent.dependentSet().add(this);
    }
}
