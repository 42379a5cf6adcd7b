package io.rdmaverbs.spring.boot.descriptor;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.rdmaverbs.verbs.ClosePlan;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.ResourceRef;

/**
 * A close plan, for JSON.
 *
 * @param policy the policy planned for
 * @param blocked whether a strict close would refuse
 * @param steps the releases in order
 * @param blockers what a strict close would refuse on, or what a cascade close will clear
 */
public record ClosePlanDescriptor(String policy, boolean blocked, List<Step> steps,
        List<StuckReferenceDescriptor> blockers) {

    /**
     * One release.
     *
     * @param order its position, from 1
     * @param resource what is released
     * @param verb the release verb
     * @param preparations what is done first
     */
    public record Step(int order, ResourceRef resource, String verb, List<String> preparations) {
    }

    public static ClosePlanDescriptor of(ClosePlan plan) {
        return of(plan, LeaseDescriptor::of);
    }

    /** {@code plan}, the leases of its blockers described by {@code leases}. */
    public static ClosePlanDescriptor of(ClosePlan plan, Function<Lease, LeaseDescriptor> leases) {
        List<Step> steps = new ArrayList<>();
        for (ClosePlan.Step s : plan.steps()) {
            steps.add(new Step(steps.size() + 1, s.resource(), s.verb(), s.preparations()));
        }
        return new ClosePlanDescriptor(plan.policy().name(), plan.isBlocked(), steps,
                plan.blockers().stream().map(s -> StuckReferenceDescriptor.of(s, leases)).toList());
    }
}
