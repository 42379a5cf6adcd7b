package io.rdmaverbs.verbs;

import java.time.Instant;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.StuckReference.Consequence;
import io.rdmaverbs.verbs.attr.RemoteAccess;

/**
 * A slice of a {@link MemoryRegion} whose rkey was handed to a connection's peer for one-sided RDMA. The
 * region cannot see the peer's operations (they touch it without any call on this side), so the graph keeps
 * the export as a hold on the region: a strict close is refused while it lives, naming the peer, the rkey
 * and since when, because {@code ibv_dereg_mr(3)} would succeed and the peer's next operation would fail
 * with {@code IBV_WC_REM_ACCESS_ERR}, breaking its connection. A cascade close revokes it first.
 *
 * <p>The graph knows nothing of connections: the exporter gives a {@link Revocation} that tells the peer and
 * waits for it, and {@linkplain #end() ends} the export once the peer can no longer reach the region through
 * it (revoked, or its connection gone).
 */
public final class RemoteExport {

    /** How the exporter withdraws the peer's access; implemented where the connection is known. */
    public interface Revocation {

        /** What {@link #revoke} does, in words, for close plans ("send REVOKE to ..., wait ..."). */
        String describe(RemoteExport export);

        /**
         * Withdraws the peer's access to {@code export} and returns once the peer can no longer reach the
         * region through it, having {@linkplain RemoteExport#end() ended} the export. Blocks (bounded); called
         * by {@link RemoteExport#revoke()}, so by a cascade close of the region on the closing thread.
         */
        void revoke(RemoteExport export);
    }

    private final MemoryRegion region;
    private final long id;
    private final String holder;
    private final long offset;
    private final long length;
    private final Set<RemoteAccess> access;
    private final Revocation revocation;
    private final Instant since = Instant.now();
    private volatile boolean ended;

    RemoteExport(MemoryRegion region, long id, String holder, long offset, long length, Set<RemoteAccess> access,
            Revocation revocation) {
        this.region = region;
        this.id = id;
        this.holder = holder;
        this.offset = offset;
        this.length = length;
        this.access = Collections.unmodifiableSet(EnumSet.copyOf(access));
        this.revocation = revocation;
    }

    public ResourceRef region() {
        return region.ref();
    }

    /** The exporter's number for it, unique on its connection; the peer's remote region names it too. */
    public long id() {
        return id;
    }

    /** Who was given the key: the connection and its peer, as the exporter describes them. */
    public String holder() {
        return holder;
    }

    /** Where the exported slice starts in the region. */
    public long offset() {
        return offset;
    }

    public long length() {
        return length;
    }

    public Set<RemoteAccess> access() {
        return access;
    }

    /** The rkey the peer was given: the region's. */
    public int rkey() {
        return region.rkey();
    }

    public Instant since() {
        return since;
    }

    /** Whether the peer may still reach the region through it. */
    public boolean isActive() {
        return !ended;
    }

    /**
     * Withdraws the peer's access (through the exporter's {@link Revocation}: the peer is told, its
     * operations in flight complete, it acknowledges), then ends the export. Idempotent.
     */
    public void revoke() {
        if (!ended) {
            revocation.revoke(this);
            end();
        }
    }

    /**
     * The peer can no longer reach the region through this export: it acknowledged a revocation, or the
     * connection's QP is gone or in the error state. The region is no longer held by it. Called by the
     * exporter; an application calls {@link #revoke()} instead. Idempotent.
     */
    public void end() {
        if (!ended) {
            ended = true;
            region.exportEnded(this);
        }
    }

    /** What revoking it would do, for a cascade's plan. */
    String revocationPlan() {
        return revocation.describe(this);
    }

    StuckReference stuckReference(ResourceRef self) {
        return new StuckReference(self, ResourceKind.MEMORY_REGION.releaseVerb(), Consequence.BREAKS_REMOTE_ACCESS, null,
                Cause.REMOTE_EXPORT, null, null, self + " is exported to " + holder + " as " + this
                        + " since " + since + ": ibv_dereg_mr would succeed, but the peer's next operation through rkey 0x"
                        + Integer.toHexString(rkey()) + " would fail with IBV_WC_REM_ACCESS_ERR and break its "
                        + "connection; revoke the export first (a CASCADE close does)");
    }

    @Override
    public String toString() {
        return "export " + id + " (rkey 0x" + Integer.toHexString(rkey()) + ", bytes " + offset + ".." + (offset + length)
                + ", " + access + ")";
    }
}
