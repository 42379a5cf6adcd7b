package io.rdmaverbs.verbs;

import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.error.Errno;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.rdmaverbs.verbs.StuckReference.Consequence;

import org.jspecify.annotations.Nullable;

/**
 * The graph's close engine under one {@link ClosePolicy}: plans from the graph alone, refuses before
 * any native call what the policy forbids, releases (dependents first where the policy reaches them)
 * and reports. {@link VerbsResource#close(ClosePolicy)} and {@link Verbs#close(Collection, ClosePolicy)}
 * both go through it, so a plan, a refusal and a report are built in one way.
 */
final class Teardown {

    private static final System.Logger LOG = System.getLogger(Teardown.class.getName());
    private static final Map<ClosePolicy, Teardown> BY_POLICY = new EnumMap<>(ClosePolicy.class);

    static {
        for (ClosePolicy p : ClosePolicy.values()) {
            BY_POLICY.put(p, new Teardown(p));
        }
    }

    private final ClosePolicy policy;

    private Teardown(ClosePolicy policy) {
        this.policy = policy;
    }

    static Teardown under(ClosePolicy policy) {
        return BY_POLICY.get(policy);
    }

    // ---- planning -------------------------------------------------------------------------------

    /** A plan and the resources of its steps, in order. */
    record Planned(ClosePlan plan, List<VerbsResource> order) {
    }

    /**
     * STRICT plans exactly {@code resources} and lists as blockers what holds them from outside the set;
     * CASCADE and ATTEMPT add every dependent, and CASCADE lists every hold it will clear on the way.
     * Each step and its holds are taken as the walk reaches the step (its dependents' steps done): the
     * resource and its dependents are read once, while the walk has them at hand.
     */
    Planned plan(Collection<? extends VerbsResource> resources) {
        return plan(resources, false);
    }

    /** {@link #plan(Collection)}, told whether {@code resources} are in id order already (the whole graph is). */
    Planned plan(Collection<? extends VerbsResource> resources, boolean inIdOrder) {
        boolean cascade = policy == ClosePolicy.CASCADE;
        List<ClosePlan.Step> steps = new ArrayList<>(resources.size());
        List<StuckReference> blockers = new ArrayList<>();
        List<StuckReference> held = new ArrayList<>();
        ReleaseOrder walk = new ReleaseOrder(resources, inIdOrder, policy != ClosePolicy.STRICT, (r, dependents, reached) -> {
            steps.add(new ClosePlan.Step(r.ref(), r.releaseVerb(), cascade ? r.cascadePreparations() : List.of()));
            if (cascade) {
                // CASCADE lists every hold, to clear it on the way.
                r.addStuckReferences(blockers, dependents);
                return;
            }
            // The others list only what no step of the plan resolves. A blocker is a dependent of what it
            // holds, so it is in the plan exactly when the walk reached it before this step.
            held.clear();
            r.addStuckReferences(held, dependents);
            for (StuckReference s : held) {
                if (s.blocker() == null || !reached.containsId(s.blocker().id())) {
                    blockers.add(s);
                }
            }
        });
        return new Planned(new ClosePlan(policy, steps, blockers), walk.order());
    }

    /**
     * Dependents before what they depend on (a post-order walk, each resource's dependents newest first),
     * oldest roots first.
     */
    private static final class ReleaseOrder {

        /** A resource the walk reached the step of, with its dependents as the walk read them. */
        @FunctionalInterface
        interface Step {
            void reached(VerbsResource r, VerbsResource[] dependents, ReachedResources reached);
        }

        private final List<VerbsResource> order;
        private final ReachedResources reached;
        /** The resources the walk may reach; null for all dependents. */
        private final @Nullable ReachedResources members;
        private final Step step;

        /** With {@code closure}, the walk follows every dependent; without it, only those in {@code resources}. */
        ReleaseOrder(Collection<? extends VerbsResource> resources, boolean inIdOrder, boolean closure, Step step) {
            List<VerbsResource> roots = new ArrayList<>(resources);
            if (!inIdOrder) {
                roots.sort((a, b) -> Long.compare(a.id(), b.id()));
            }
            this.order = new ArrayList<>(roots.size());
            this.reached = ReachedResources.from(roots);
            this.step = step;
            if (closure) {
                this.members = null;
            } else {
                this.members = ReachedResources.from(roots);
                for (VerbsResource r : roots) {
                    members.add(r);
                }
            }
            for (VerbsResource r : roots) {
                visit(r);
            }
        }

        List<VerbsResource> order() {
            return order;
        }

        private void visit(VerbsResource r) {
            if (!reached.add(r)) {
                return;
            }
            VerbsResource[] dependents = r.dependentArray();
            for (int i = dependents.length - 1; i >= 0; i--) {
                if (members == null || members.contains(dependents[i])) {
                    visit(dependents[i]);
                }
            }
            order.add(r);
            step.reached(r, dependents, reached);
        }
    }

    // ---- one resource ---------------------------------------------------------------------------

    /**
     * Closes {@code r}; under CASCADE its dependents first. Idempotent. On a native failure {@code r}
     * stays open and the close can be retried.
     *
     * @throws CloseRefusedException when STRICT (or ATTEMPT, for a hang, leak or lease) refuses
     * @throws VerbsException when the release verb fails natively
     */
    void close(VerbsResource r) {
        close(r, null);
    }

    /**
     * {@link #close(VerbsResource)}, recording {@code because} as the reason every later use of {@code r} is
     * refused with (a remote region revoked by its peer); null for an ordinary close.
     */
    void close(VerbsResource r, @Nullable String because) {
        synchronized (r.lifetime) {
            if (r.isClosed()) {
                return;
            }
            // Checked before anything is touched (a refusal must leave the resource usable), and again
            // once new operations are shut out: a creation in flight may have added a dependent.
            if (policy != ClosePolicy.CASCADE) {
                refuseIfStuck(r);
            }
            if (because != null) {
                r.lifetime.closingBecause(because);
            }
            try {
                r.beginClosing();
            } catch (RuntimeException e) {
                r.lifetime.closingBecause(null);
                throw e;
            }
            boolean released = false;
            try {
                List<StuckReference> predicted = switch (policy) {
                    case STRICT, ATTEMPT -> refuseIfStuck(r);
                    case CASCADE -> {
                        clearHolds(r);
                        yield List.of();
                    }
                };
                release(r, predicted);
                released = true;
            } finally {
                if (released) {
                    r.markClosed(because);
                } else {
                    r.lifetime.closingBecause(null);
                    r.lifetime.endClosing();
                }
            }
            freeOwned(r);
            // Only an ATTEMPT gets here with dependents: the release verb succeeded although the graph
            // predicted EBUSY for them. Their native objects are no longer vouched for, so they end without
            // a release verb of their own. (Not a device context: its dependents make ibv_close_device(3)
            // leak, not fail, and ATTEMPT refuses that as STRICT does.)
            for (VerbsResource d : r.dependents()) {
                defunct(d, "its " + r.kind().shortName() + " " + r.name() + " was released under it");
            }
            r.verbs.fireClosed(r);
        }
    }

    /**
     * The native object is gone, so the resource is closed whatever happens here: a failure to free what
     * it owned is reported, never turned into a failed close of a resource that no longer exists.
     */
    private static void freeOwned(VerbsResource r) {
        try {
            r.freeOwned();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> r + " was released, but freeing what it owned failed", e);
        }
    }

    /** CASCADE: dependents newest first (as try-with-resources would), each cascading; then own holds. */
    private void clearHolds(VerbsResource r) {
        for (VerbsResource d : r.dependents().reversed()) {
            close(d);
        }
        r.prepareCascade();
        for (Lease l : r.leases()) {
            l.revoke();
        }
    }

    /**
     * Refuses what the policy does not hand to the kernel: every stuck reference under STRICT, all but
     * predicted errno failures under ATTEMPT. Returns the stuck references (what ATTEMPT predicts).
     */
    private List<StuckReference> refuseIfStuck(VerbsResource r) {
        List<StuckReference> stuck = r.stuckReferences();
        List<StuckReference> refusing = policy == ClosePolicy.ATTEMPT
                ? stuck.stream().filter(s -> s.consequence() != Consequence.FAILS).toList()
                : stuck;
        if (!refusing.isEmpty()) {
            CloseRefusedException refusal = refusal(r, refusing);
            r.verbs.fireCloseRefused(r, refusal);
            throw refusal;
        }
        return stuck;
    }

    private CloseRefusedException refusal(VerbsResource r, List<StuckReference> blockers) {
        ClosePlan plan = new ClosePlan(policy, List.of(new ClosePlan.Step(r.ref(), r.releaseVerb(), List.of())),
                blockers);
        return new CloseRefusedException(r.releaseVerb(), r.ref(), plan);
    }

    private static void release(VerbsResource r, List<StuckReference> predicted) {
        try {
            r.release();
        } catch (VerbsException e) {
            VerbsException named = e.about(r.ref().toString());
            VerbsException failure = predicted.isEmpty() ? named
                    : new VerbsException(named.verb(), named.resource(), named.errno(), named.reason()
                            + " (the graph predicted: " + predicted.getFirst().message() + ")", e);
            r.verbs.fireCloseFailed(r, failure);
            throw failure;
        }
    }

    /**
     * Ends a resource whose native object went without its own release verb, and its dependents first.
     * Takes each one's close monitor, parent before child, as a cascade does.
     */
    static void defunct(VerbsResource r, String because) {
        synchronized (r.lifetime) {
            if (r.isClosed()) {
                return;
            }
            for (VerbsResource d : r.dependents()) {
                defunct(d, because);
            }
            r.markClosed("defunct: " + because);
            freeOwned(r);
            r.verbs.fireClosed(r);
        }
    }

    // ---- a subgraph -----------------------------------------------------------------------------

    /**
     * Closes {@code resources} in the order of {@link #plan}. A STRICT close whose plan is blocked touches
     * nothing and reports every resource as left, with the reason. A native failure leaves that resource
     * (and what it depends on) open, and the close goes on with the rest.
     */
    CloseReport close(Collection<? extends VerbsResource> resources) {
        return close(resources, false);
    }

    /** {@link #close(Collection)}, told whether {@code resources} are in id order already (the whole graph is). */
    CloseReport close(Collection<? extends VerbsResource> resources, boolean inIdOrder) {
        Planned planned = plan(resources, inIdOrder);
        ClosePlan plan = planned.plan();
        List<ResourceRef> closed = new ArrayList<>();
        List<CloseReport.Leftover> left = new ArrayList<>();
        if (plan.isBlocked()) {
            for (VerbsResource r : planned.order()) {
                List<StuckReference> own = plan.blockers().stream().filter(b -> b.resource().id() == r.id()).toList();
                CloseRefusedException refusal = refusal(r, own.isEmpty() ? plan.blockers() : own);
                left.add(new CloseReport.Leftover(r.ref(), own.isEmpty()
                        ? "not attempted: the strict close of the set was refused" : refusal.reason(), refusal));
            }
            return new CloseReport(policy, closed, left);
        }
        Set<VerbsResource> failed = new HashSet<>();
        for (VerbsResource r : planned.order()) {
            if (r.isClosed()) {
                closed.add(r.ref());
                continue;
            }
            VerbsResource stuckOn = failed.isEmpty() ? null : failedDescendant(r, failed);
            if (stuckOn != null) {
                failed.add(r);
                left.add(new CloseReport.Leftover(r.ref(), "not attempted: " + stuckOn.ref() + " could not be released",
                        new VerbsException(r.releaseVerb(), r.ref().toString(), Errno.EBUSY,
                                "still used by " + stuckOn.ref() + ", whose release failed")));
                continue;
            }
            try {
                close(r);
                closed.add(r.ref());
            } catch (VerbsException e) {
                failed.add(r);
                left.add(new CloseReport.Leftover(r.ref(), e.getMessage(), e));
            }
        }
        return new CloseReport(policy, closed, left);
    }

    private static @Nullable VerbsResource failedDescendant(VerbsResource r, Set<VerbsResource> failed) {
        for (VerbsResource d : r.dependentArray()) {
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
}
