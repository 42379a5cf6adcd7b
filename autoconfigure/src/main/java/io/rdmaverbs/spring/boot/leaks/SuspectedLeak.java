package io.rdmaverbs.spring.boot.leaks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.StuckReference;

import org.jspecify.annotations.Nullable;

/**
 * A hold on a resource older than the leak-detection threshold: a lease nobody released, or completion
 * events nobody acknowledged (the CQ's {@code ibv_destroy_cq} would block forever, ibv_ack_cq_events(3)).
 *
 * @param resource the resource held
 * @param cause {@code LEASE} or {@code UNACKNOWLEDGED_CQ_EVENTS}
 * @param since when the hold began
 * @param heldFor how long it has lasted when it was found
 * @param thread the thread that took it
 * @param holder the lease's holder, as the borrower described itself; null for completion events
 * @param stack where it was taken, innermost first; empty when it was taken before detection was on
 */
public record SuspectedLeak(ResourceRef resource, StuckReference.Cause cause, Instant since, Duration heldFor,
        String thread, @Nullable String holder, List<StackTraceElement> stack) {

    /** A sentence a user can act on. */
    public String message() {
        String what = holder == null ? "the oldest unacknowledged completion event of " + resource
                : "the lease of '" + holder + "' on " + resource;
        String release = holder == null ? "acknowledge it (ibv_ack_cq_events)" : "close the lease";
        return what + " was taken on thread " + thread + " at " + since + " and is still held after "
                + heldFor.toMillis() + " ms: " + release;
    }
}
