package io.rdmaverbs.verbs;

import java.util.List;

/**
 * What closing a subgraph would do, computed from the graph without touching native code: the order
 * (dependents before what they depend on) with the verb and preparatory actions of each step, and,
 * for {@link ClosePolicy#STRICT}, the stuck references that make it refuse.
 *
 * @param policy the policy the plan is for
 * @param steps the releases in execution order
 * @param blockers for STRICT, what would make it refuse (empty: the close would proceed); for
 *     CASCADE, what it will have to clear on the way
 */
public record ClosePlan(ClosePolicy policy, List<Step> steps, List<StuckReference> blockers) {

    public ClosePlan {
        steps = List.copyOf(steps);
        blockers = List.copyOf(blockers);
    }

    /**
     * One release.
     *
     * @param resource what is released
     * @param verb the verb that releases it
     * @param preparations what is done first (acknowledge CQ events, revoke a lease), in words
     */
    public record Step(ResourceRef resource, String verb, List<String> preparations) {
        public Step {
            preparations = List.copyOf(preparations);
        }
    }

    /** Whether a STRICT close would refuse. */
    public boolean isBlocked() {
        return policy == ClosePolicy.STRICT && !blockers.isEmpty();
    }

    /** A readable rendering, one step per line. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(policy).append(" close of ").append(steps.size()).append(" resource(s)");
        if (isBlocked()) {
            sb.append(" is REFUSED:");
            blockers.forEach(b -> sb.append("\n  - ").append(b.message()));
            sb.append("\nwould be, in order:");
        }
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            sb.append("\n  ").append(i + 1).append(". ").append(s.verb()).append(' ').append(s.resource());
            s.preparations().forEach(p -> sb.append("\n       first: ").append(p));
        }
        return sb.toString();
    }
}
