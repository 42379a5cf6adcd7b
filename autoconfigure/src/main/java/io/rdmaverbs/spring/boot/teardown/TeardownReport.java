package io.rdmaverbs.spring.boot.teardown;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.StuckReference;

/**
 * What the teardown did: the resources it released, in the order it released them, and what it left
 * open and why.
 *
 * @param policy the policy applied after the graceful phase
 * @param took how long the whole teardown took
 * @param attempts how many strict close attempts the graceful phase made
 * @param drained whether the graceful phase alone released everything (nothing was left for the policy)
 * @param cleared what the cascade policy cleared out of the way first (leases it revoked, completion
 *     events it acknowledged), as the stuck references it found; empty for strict
 * @param closed the resources released, in release order
 * @param left the resources still open, each with the reason
 */
public record TeardownReport(TeardownPolicy policy, Duration took, int attempts, boolean drained,
        List<StuckReference> cleared, List<ResourceRef> closed, List<Leftover> left) {

    /** How many frames of a lease's stack the report shows. */
    static final int STACK_FRAMES = 5;

    public TeardownReport {
        cleared = List.copyOf(cleared);
        closed = List.copyOf(closed);
        left = List.copyOf(left);
    }

    /**
     * A resource the teardown did not release.
     *
     * @param resource the resource
     * @param reason why its release was refused or failed
     * @param stuckReferences everything that still holds it
     */
    public record Leftover(ResourceRef resource, String reason, List<StuckReference> stuckReferences) {

        public Leftover {
            stuckReferences = List.copyOf(stuckReferences);
        }
    }

    /** Whether every resource was released. */
    public boolean isComplete() {
        return left.isEmpty();
    }

    /** The log block: a summary line, what was closed in order, and what was left with its holders. */
    public String describe() {
        StringBuilder sb = new StringBuilder("RDMA verbs teardown (")
                .append(policy.name().toLowerCase(Locale.ROOT)).append(", ")
                .append(String.format(Locale.ROOT, "%.3f s", took.toNanos() / 1e9)).append(", ")
                .append(attempts).append(attempts == 1 ? " attempt" : " attempts")
                .append(drained ? ", drained" : "").append("): closed ").append(closed.size())
                .append(", left ").append(left.size());
        if (!cleared.isEmpty()) {
            sb.append("\n  cleared first (cascade):");
            for (StuckReference s : cleared) {
                sb.append("\n    - ").append(s.cause() == StuckReference.Cause.LEASE
                        || s.cause() == StuckReference.Cause.REMOTE_EXPORT ? "revoked: " : "acknowledged: ")
                        .append(s.message());
            }
        }
        if (!closed.isEmpty()) {
            sb.append("\n  closed, in order:");
            for (int i = 0; i < closed.size(); i++) {
                ResourceRef r = closed.get(i);
                sb.append(String.format(Locale.ROOT, "%n    %2d. %s %s", i + 1, r.releaseVerb(), r));
            }
        }
        if (!left.isEmpty()) {
            sb.append("\n  left open:");
            for (Leftover l : left) {
                sb.append("\n    - ").append(l.resource()).append(": ").append(l.reason());
                for (StuckReference s : l.stuckReferences()) {
                    sb.append("\n        ").append(s.message());
                    Lease lease = s.lease();
                    if (lease != null) {
                        lease.stack().stream().limit(STACK_FRAMES)
                                .forEach(frame -> sb.append("\n          at ").append(frame));
                    }
                }
            }
        }
        return sb.toString();
    }
}
