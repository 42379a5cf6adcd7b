package io.rdmaverbs.verbs;

import io.rdmaverbs.verbs.error.Errno;

import org.jspecify.annotations.Nullable;

/**
 * One reason the release of a resource would go wrong if it were attempted now, found from the graph
 * alone (no native call): the verb, what would happen (an errno, a hang, a leak), and what holds it.
 *
 * @param resource the resource whose release would go wrong
 * @param verb the release verb, e.g. {@code ibv_dealloc_pd}
 * @param consequence what the verb would do
 * @param errno the errno the verb would fail with, for {@link Consequence#FAILS}
 * @param cause the kind of holder
 * @param blocker the resource that holds it, when the holder is a resource
 * @param lease the lease that holds it, when the holder is a borrower
 * @param message a sentence a user can act on
 */
public record StuckReference(ResourceRef resource, String verb, Consequence consequence, @Nullable Errno errno,
        Cause cause, @Nullable ResourceRef blocker, @Nullable Lease lease, String message) {

    /** What the release verb would do. */
    public enum Consequence {
        /** The verb returns an errno and nothing is released. */
        FAILS,
        /** The verb never returns ({@code ibv_destroy_cq} with unacknowledged CQ events). */
        BLOCKS_FOREVER,
        /** The verb succeeds but leaves kernel objects behind ({@code ibv_close_device} with resources open). */
        LEAKS,
        /** The verb succeeds but pulls the resource from under a borrower still using it. */
        BREAKS_LEASE,
        /**
         * The verb succeeds but ends a live connection under the application: the peer is not told through
         * a disconnect both sides follow, and the QP's work requests do not flush first.
         */
        ABORTS_CONNECTION,
        /**
         * The verb succeeds, but a connection's peer that was given the region's rkey may still use it: its
         * next RDMA READ, WRITE or atomic through it fails with {@code IBV_WC_REM_ACCESS_ERR}, which moves the
         * peer's QP to the error state and ends the connection.
         */
        BREAKS_REMOTE_ACCESS
    }

    /** What holds the resource. */
    public enum Cause {
        /** A resource created on it (a QP on a PD or CQ, a CQ on a channel, ...). */
        DEPENDENT_RESOURCE,
        /** A multicast group the QP is still attached to. */
        MULTICAST_ATTACHMENT,
        /** This process is still registered with an XRC receive QP of the domain. */
        XRC_RECEIVE_QP_REGISTRATION,
        /** Completion events taken from the channel and not yet acknowledged. */
        UNACKNOWLEDGED_CQ_EVENTS,
        /** A borrower's lease. */
        LEASE,
        /** CM events returned by {@code rdma_get_cm_event} and not yet acknowledged ({@code rdma_ack_cm_event}). */
        UNACKNOWLEDGED_CM_EVENTS,
        /** The CM id is connected: {@code rdma_disconnect} first. */
        LIVE_CONNECTION,
        /** A connection request on a listening id neither accepted nor rejected. */
        PENDING_CONNECTION_REQUEST,
        /** The memory region is exported to a connection's peer ({@link RemoteExport}). */
        REMOTE_EXPORT,
        /** A handle on a peer's exported memory ({@link RemoteRegion}) reaches it through the QP. */
        REMOTE_REGION
    }

    @Override
    public String toString() {
        return message;
    }
}
