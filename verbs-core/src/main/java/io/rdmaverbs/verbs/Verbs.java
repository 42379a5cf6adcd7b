package io.rdmaverbs.verbs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.Handle;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

/**
 * The root of a resource graph on one provider: opens devices, keeps every live resource, answers
 * what is stuck and in what order things must be released, and closes subgraphs under a
 * {@link ClosePolicy}.
 *
 * <pre>{@code
 * try (Verbs verbs = Verbs.using(provider)) {
 *     DeviceContext ctx = verbs.openDevice("rxe0");
 *     ProtectionDomain pd = ctx.allocateProtectionDomain();
 *     ...
 * } // cascade: everything still open is released, children first
 * }</pre>
 */
public final class Verbs implements AutoCloseable {

    private final VerbsProvider provider;
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentSkipListMap<Long, VerbsResource> live = new ConcurrentSkipListMap<>();
    private final Map<Handle, VerbsResource> byHandle = new ConcurrentHashMap<>();
    private final List<VerbsListener> listeners = new CopyOnWriteArrayList<>();

    private Verbs(VerbsProvider provider) {
        this.provider = Objects.requireNonNull(provider, "provider");
    }

    /** A new, empty graph on {@code provider}. */
    public static Verbs using(VerbsProvider provider) {
        return new Verbs(provider);
    }

    public VerbsProvider provider() {
        return provider;
    }

    public void addListener(VerbsListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(VerbsListener listener) {
        listeners.remove(listener);
    }

    // ---- devices --------------------------------------------------------------------------------

    /** The devices the provider sees ({@code ibv_get_device_list}); empty on a machine without RDMA. */
    public List<DeviceInfo> devices() {
        return provider.deviceVerbs().devices();
    }

    /** Opens the device named {@code nameOrGuid} (a kernel name such as {@code rxe0}, or a node GUID). */
    public DeviceContext openDevice(String nameOrGuid) {
        return openDevice(findDevice(nameOrGuid), null);
    }

    /** Opens {@code device}, naming the context {@code name} in reports. */
    public DeviceContext openDevice(DeviceInfo device, @Nullable String name) {
        Objects.requireNonNull(device, "device");
        ContextHandle handle;
        try {
            handle = provider.deviceVerbs().openDevice(device);
        } catch (VerbsException e) {
            throw e.about("device " + device.name());
        }
        DeviceContext ctx;
        try {
            ctx = new DeviceContext(this, device, handle, provider.deviceVerbs().queryDevice(handle), name);
        } catch (RuntimeException e) {
            // Nothing may be left allocated when opening fails half-way.
            try {
                provider.deviceVerbs().closeDevice(handle);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e instanceof VerbsException v ? v.about("device " + device.name()) : e;
        }
        register(ctx);
        return ctx;
    }

    /**
     * The device named {@code nameOrGuid}; a clear {@code ENODEV} naming the devices that do exist
     * otherwise.
     */
    public DeviceInfo findDevice(String nameOrGuid) {
        Objects.requireNonNull(nameOrGuid, "nameOrGuid");
        List<DeviceInfo> all = provider.deviceVerbs().devices();
        for (DeviceInfo d : all) {
            if (d.name().equals(nameOrGuid)) {
                return d;
            }
        }
        Long guid = parseGuidOrNull(nameOrGuid);
        if (guid != null) {
            for (DeviceInfo d : all) {
                if (d.guid() == guid) {
                    return d;
                }
            }
        }
        String present = all.isEmpty() ? "none (no RDMA device on this machine; use the simulated provider)"
                : all.stream().map(d -> d.name() + " (GUID " + d.guidHex() + ")").toList().toString();
        throw new VerbsException("ibv_open_device", "device " + nameOrGuid, Errno.ENODEV,
                "no RDMA device with that name or GUID; devices present: " + present);
    }

    private static @Nullable Long parseGuidOrNull(String text) {
        try {
            return DeviceInfo.parseGuid(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    // ---- the graph ------------------------------------------------------------------------------

    /** Every live resource, oldest first. */
    public List<VerbsResource> resources() {
        return List.copyOf(live.values());
    }

    /** The open device contexts. */
    public List<DeviceContext> contexts() {
        List<DeviceContext> out = new ArrayList<>();
        for (VerbsResource r : live.values()) {
            if (r instanceof DeviceContext c) {
                out.add(c);
            }
        }
        return out;
    }

    public Optional<VerbsResource> find(long id) {
        return Optional.ofNullable(live.get(id));
    }

    /** Every stuck reference in the graph: what would make some release fail, hang, leak or break now. */
    public List<StuckReference> stuckReferences() {
        List<StuckReference> out = new ArrayList<>();
        for (VerbsResource r : live.values()) {
            out.addAll(r.stuckReferences());
        }
        return out;
    }

    /** The plan for closing everything. */
    public ClosePlan planClose(ClosePolicy policy) {
        return planClose(live.values(), policy);
    }

    /**
     * The plan for closing {@code resources} under {@code policy}. STRICT closes exactly those
     * resources, children first, and lists what would refuse (holders outside the set, leases,
     * unacknowledged CQ events); CASCADE and ATTEMPT include every dependent and list what the close
     * will clear on the way.
     */
    public ClosePlan planClose(Collection<? extends VerbsResource> resources, ClosePolicy policy) {
        return plan(resources, policy).plan();
    }

    /** A plan and the resources of its steps, in order. */
    private record Planned(ClosePlan plan, List<VerbsResource> order) {
    }

    private Planned plan(Collection<? extends VerbsResource> resources, ClosePolicy policy) {
        List<VerbsResource> order = releaseOrder(resources, policy != ClosePolicy.STRICT);
        Set<Long> inPlan = new HashSet<>();
        order.forEach(r -> inPlan.add(r.id()));
        List<ClosePlan.Step> steps = new ArrayList<>(order.size());
        List<StuckReference> blockers = new ArrayList<>();
        for (VerbsResource r : order) {
            steps.add(new ClosePlan.Step(r.ref(), r.kind().releaseVerb(),
                    policy == ClosePolicy.CASCADE ? r.cascadePreparations() : List.of()));
            for (StuckReference s : r.stuckReferences()) {
                boolean resolvedEarlier = s.blocker() != null && inPlan.contains(s.blocker().id());
                if (!resolvedEarlier || policy == ClosePolicy.CASCADE) {
                    blockers.add(s);
                }
            }
        }
        return new Planned(new ClosePlan(policy, steps, blockers), order);
    }

    /** Closes everything, cascading; see {@link #close(ClosePolicy)}. */
    @Override
    public void close() {
        close(ClosePolicy.CASCADE);
    }

    /** Closes every live resource under {@code policy}, children first. */
    public CloseReport close(ClosePolicy policy) {
        return close(live.values(), policy);
    }

    /**
     * Closes {@code resources} under {@code policy} in the order of {@link #planClose}. A STRICT close
     * whose plan is blocked touches nothing and reports every resource as left, with the reason. A
     * native failure leaves that resource (and what it depends on) open, and the close goes on with
     * the rest.
     */
    public CloseReport close(Collection<? extends VerbsResource> resources, ClosePolicy policy) {
        Planned planned = plan(resources, policy);
        ClosePlan plan = planned.plan();
        List<VerbsResource> order = planned.order();
        List<ResourceRef> closed = new ArrayList<>();
        List<CloseReport.Leftover> left = new ArrayList<>();
        if (plan.isBlocked()) {
            for (VerbsResource r : order) {
                List<StuckReference> own = plan.blockers().stream()
                        .filter(b -> b.resource().id() == r.id()).toList();
                ClosePlan mine = new ClosePlan(policy, List.of(new ClosePlan.Step(r.ref(), r.kind().releaseVerb(),
                        List.of())), own.isEmpty() ? plan.blockers() : own);
                CloseRefusedException refusal = new CloseRefusedException(r.kind().releaseVerb(), r.ref(), mine);
                left.add(new CloseReport.Leftover(r.ref(), own.isEmpty()
                        ? "not attempted: the strict close of the set was refused" : refusal.reason(), refusal));
            }
            return new CloseReport(policy, closed, left);
        }
        Set<VerbsResource> failed = new HashSet<>();
        for (VerbsResource r : order) {
            if (r.isClosed()) {
                closed.add(r.ref());
                continue;
            }
            VerbsResource stuckOn = failedDescendant(r, failed);
            if (stuckOn != null) {
                failed.add(r);
                left.add(new CloseReport.Leftover(r.ref(), "not attempted: " + stuckOn.ref() + " could not be released",
                        new VerbsException(r.kind().releaseVerb(), r.ref().toString(), Errno.EBUSY,
                                "still used by " + stuckOn.ref() + ", whose release failed")));
                continue;
            }
            try {
                r.close(policy);
                closed.add(r.ref());
            } catch (VerbsException e) {
                failed.add(r);
                left.add(new CloseReport.Leftover(r.ref(), e.getMessage(), e));
            }
        }
        return new CloseReport(policy, closed, left);
    }

    private static @Nullable VerbsResource failedDescendant(VerbsResource r, Set<VerbsResource> failed) {
        for (VerbsResource d : r.dependents()) {
            if (failed.contains(d)) {
                return d;
            }
            VerbsResource deeper = failedDescendant(d, failed);
            if (deeper != null) {
                return deeper;
            }
        }
        return null;
    }

    /**
     * Dependents before what they depend on (a post-order walk), oldest roots first.
     *
     * @param closure whether to include dependents outside {@code resources}
     */
    static List<VerbsResource> releaseOrder(Collection<? extends VerbsResource> resources, boolean closure) {
        Set<VerbsResource> members = new HashSet<>(resources);
        List<VerbsResource> roots = new ArrayList<>(resources);
        roots.sort((a, b) -> Long.compare(a.id(), b.id()));
        LinkedHashSet<VerbsResource> out = new LinkedHashSet<>();
        Set<VerbsResource> visiting = new HashSet<>();
        for (VerbsResource r : roots) {
            visit(r, closure, members, visiting, out);
        }
        return List.copyOf(out);
    }

    private static void visit(VerbsResource r, boolean closure, Set<VerbsResource> members, Set<VerbsResource> visiting,
            LinkedHashSet<VerbsResource> out) {
        if (out.contains(r) || !visiting.add(r)) {
            return;
        }
        for (VerbsResource d : r.dependents().reversed()) {
            if (closure || members.contains(d)) {
                visit(d, closure, members, visiting, out);
            }
        }
        out.add(r);
    }

    // ---- package-private wiring -----------------------------------------------------------------

    long nextId() {
        return ids.incrementAndGet();
    }

    /** A creation verb: entered parents stay alive (cannot begin closing) until the child is linked. */
    <R extends VerbsResource> R create(VerbsResource subject, List<? extends VerbsResource> guards,
            Creation<R> creation) {
        int entered = 0;
        try {
            for (VerbsResource g : guards) {
                g.enter();
                entered++;
            }
            R r;
            try {
                r = creation.create();
            } catch (VerbsException e) {
                throw e.about(subject.ref().toString());
            }
            register(r);
            return r;
        } finally {
            for (int i = 0; i < entered; i++) {
                guards.get(i).exit();
            }
        }
    }

    /** The native part of a creation verb, returning the new resource. */
    @FunctionalInterface
    interface Creation<R extends VerbsResource> {
        R create();
    }

    private void register(VerbsResource r) {
        r.attach();
        live.put(r.id(), r);
        Handle h = handleOf(r);
        if (h != null) {
            byHandle.put(h, r);
        }
        for (VerbsListener l : listeners) {
            l.created(r);
        }
    }

    void unregister(VerbsResource r) {
        live.remove(r.id());
        Handle h = handleOf(r);
        if (h != null) {
            byHandle.remove(h);
        }
    }

    @Nullable VerbsResource resourceOf(@Nullable Handle handle) {
        return handle == null ? null : byHandle.get(handle);
    }

    /** The handles events can name (CQ events, and QP/CQ/SRQ async events); only those are indexed. */
    private static @Nullable Handle handleOf(VerbsResource r) {
        return switch (r) {
            case CompletionQueue c -> c.handle;
            case SharedReceiveQueue s -> s.handle;
            case QueuePair q -> q.handle;
            case XrcReceiveQpRegistration x -> x.handle;
            default -> null;
        };
    }

    void fireClosed(VerbsResource r) {
        for (VerbsListener l : listeners) {
            l.closed(r);
        }
    }

    void fireCloseFailed(VerbsResource r, VerbsException e) {
        for (VerbsListener l : listeners) {
            l.closeFailed(r, e);
        }
    }

    void fireCloseRefused(VerbsResource r, CloseRefusedException e) {
        for (VerbsListener l : listeners) {
            l.closeRefused(r, e);
        }
    }

    void fireAsyncEvent(AsyncEvent e) {
        for (VerbsListener l : listeners) {
            l.asyncEvent(e);
        }
    }
}
