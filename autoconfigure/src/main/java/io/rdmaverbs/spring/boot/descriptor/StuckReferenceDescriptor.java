package io.rdmaverbs.spring.boot.descriptor;

import java.util.function.Function;

import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.StuckReference;

import org.jspecify.annotations.Nullable;

/**
 * A stuck reference, for JSON: what the release verb of a resource would do now, and what holds it.
 *
 * @param resource the resource whose release would go wrong
 * @param verb the release verb
 * @param consequence FAILS, BLOCKS_FOREVER, LEAKS, BREAKS_LEASE, ABORTS_CONNECTION or BREAKS_REMOTE_ACCESS
 * @param cause DEPENDENT_RESOURCE, MULTICAST_ATTACHMENT, XRC_RECEIVE_QP_REGISTRATION, UNACKNOWLEDGED_CQ_EVENTS,
 *     LEASE, UNACKNOWLEDGED_CM_EVENTS, LIVE_CONNECTION, PENDING_CONNECTION_REQUEST, REMOTE_EXPORT or REMOTE_REGION
 * @param errno the errno the verb would fail with, e.g. EBUSY
 * @param blocker the resource that holds it
 * @param lease the lease that holds it
 * @param message a sentence a user can act on
 */
public record StuckReferenceDescriptor(ResourceRef resource, String verb, String consequence, String cause,
        @Nullable String errno, @Nullable ResourceRef blocker, @Nullable LeaseDescriptor lease, String message) {

    /**
     * Whether {@code s} is held from outside the graph: by a borrower's lease, by completion events nobody
     * acknowledged, or by a connection's peer that was given the region's rkey. Every other stuck reference
     * names a dependent resource that a close of the whole graph releases first, so it holds nothing up;
     * these do, until their holder lets go (a peer's export, until it acknowledges the revocation).
     */
    public static boolean holdsUpTheTeardown(StuckReference s) {
        return s.cause() == StuckReference.Cause.LEASE || s.cause() == StuckReference.Cause.UNACKNOWLEDGED_CQ_EVENTS
                || s.cause() == StuckReference.Cause.REMOTE_EXPORT;
    }

    public static StuckReferenceDescriptor of(StuckReference s) {
        return of(s, LeaseDescriptor::of);
    }

    /** {@code s}, its lease described by {@code leases}. */
    public static StuckReferenceDescriptor of(StuckReference s, Function<Lease, LeaseDescriptor> leases) {
        Errno errno = s.errno();
        Lease lease = s.lease();
        return new StuckReferenceDescriptor(s.resource(), s.verb(), s.consequence().name(), s.cause().name(),
                errno == null ? null : errno.name(), s.blocker(), lease == null ? null : leases.apply(lease),
                s.message());
    }
}
