package io.rdmaverbs.verbs;

import java.util.Objects;

import io.rdmaverbs.verbs.error.Errno;

import org.jspecify.annotations.Nullable;

/**
 * One reason the release of a resource would go wrong if it were attempted now, found from the graph
 * alone (no native call): the verb, what would happen (an errno, a hang, a leak), and what holds it.
 */
public final class StuckReference {

    /**
     * Words the message of a reference from its own parts, when it is first asked for. A graph's reports
     * list one reference per live dependent (150k for a graph of 100k resources), and most are counted,
     * filtered by cause or mapped, not read: the sentence, over half of what a reference costs, is built for
     * those that are read. A wording reads only the reference's immutable parts, so the sentence is the one
     * an eager one would have been.
     */
    @FunctionalInterface
    interface Wording {
        String words(StuckReference reference);
    }

    private final ResourceRef resource;
    private final String verb;
    private final Consequence consequence;
    private final @Nullable Errno errno;
    private final Cause cause;
    private final @Nullable ResourceRef blocker;
    private final @Nullable Lease lease;
    private final @Nullable Wording wording;
    /* Built at most once per thread that races to read it first: a String is safely published by itself. */
    private @Nullable String message;

    public StuckReference(ResourceRef resource, String verb, Consequence consequence, @Nullable Errno errno,
            Cause cause, @Nullable ResourceRef blocker, @Nullable Lease lease, String message) {
        this(resource, verb, consequence, errno, cause, blocker, lease, Objects.requireNonNull(message, "message"),
                null);
    }

    /** A reference whose message {@code wording} words when it is first read. */
    StuckReference(ResourceRef resource, String verb, Consequence consequence, @Nullable Errno errno, Cause cause,
            @Nullable ResourceRef blocker, Wording wording) {
        this(resource, verb, consequence, errno, cause, blocker, null, null, wording);
    }

    private StuckReference(ResourceRef resource, String verb, Consequence consequence, @Nullable Errno errno,
            Cause cause, @Nullable ResourceRef blocker, @Nullable Lease lease, @Nullable String message,
            @Nullable Wording wording) {
        this.resource = Objects.requireNonNull(resource, "resource");
        this.verb = Objects.requireNonNull(verb, "verb");
        this.consequence = Objects.requireNonNull(consequence, "consequence");
        this.errno = errno;
        this.cause = Objects.requireNonNull(cause, "cause");
        this.blocker = blocker;
        this.lease = lease;
        this.message = message;
        this.wording = wording;
    }

    /** The resource whose release would go wrong. */
    public ResourceRef resource() {
        return resource;
    }

    /** The release verb, e.g. {@code ibv_dealloc_pd}. */
    public String verb() {
        return verb;
    }

    /** What the verb would do. */
    public Consequence consequence() {
        return consequence;
    }

    /** The errno the verb would fail with, for {@link Consequence#FAILS}. */
    public @Nullable Errno errno() {
        return errno;
    }

    /** The kind of holder. */
    public Cause cause() {
        return cause;
    }

    /** The resource that holds it, when the holder is a resource. */
    public @Nullable ResourceRef blocker() {
        return blocker;
    }

    /** The lease that holds it, when the holder is a borrower. */
    public @Nullable Lease lease() {
        return lease;
    }

    /** A sentence a user can act on. */
    public String message() {
        String m = message;
        if (m == null) {
            m = Objects.requireNonNull(wording).words(this);
            message = m;
        }
        return m;
    }

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

    /** Equal when every part is, the message included: as the record this was. */
    @Override
    public boolean equals(Object o) {
        return o instanceof StuckReference r && resource.equals(r.resource) && verb.equals(r.verb)
                && consequence == r.consequence && errno == r.errno && cause == r.cause
                && Objects.equals(blocker, r.blocker) && Objects.equals(lease, r.lease) && message().equals(r.message());
    }

    @Override
    public int hashCode() {
        return Objects.hash(resource, verb, consequence, errno, cause, blocker, lease, message());
    }

    @Override
    public String toString() {
        return message();
    }
}
