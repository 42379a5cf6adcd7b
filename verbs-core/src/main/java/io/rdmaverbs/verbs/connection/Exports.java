package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.RemoteExport;
import io.rdmaverbs.verbs.attr.RemoteAccess;

/**
 * The memory a {@link Session} exported to its peer, and their revocation: the owner's side of one-sided
 * RDMA. Each export is a hold of the graph on its region ({@link RemoteExport}), so the region cannot be
 * deregistered under the peer; revoking one sends REVOKE (correlation id: the export) and waits for the
 * peer's REVOKE_ACK, which the peer sends once its handles on the export are closed and their operations
 * in flight completed. No ACK within the event channel's disconnect timeout: the connection is disconnected
 * (its QP in the error state, the peer can reach nothing) and closed.
 *
 * <p>When the session ends, every export ends with it: its QP goes to the error state as the session ends
 * (a close, a disconnect, a failed work request all disconnect), and the rkey is valid on that QP only.
 */
final class Exports implements RemoteExport.Revocation {

    private static final System.Logger LOG = System.getLogger(Exports.class.getName());

    private final Session session;
    private final Connection connection;
    private final Outbox outbox;
    private final Executor workers;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, RemoteExport> live = new ConcurrentHashMap<>();
    private final Map<Long, CompletableFuture<Void>> awaitingAck = new ConcurrentHashMap<>();
    private volatile boolean ended;

    Exports(Session session, Connection connection, Outbox outbox, Executor workers) {
        this.session = session;
        this.connection = connection;
        this.outbox = outbox;
        this.workers = workers;
    }

    /**
     * Exports bytes {@code offset..offset+length} of {@code region} for {@code access}: the key the peer
     * needs, carrying both sides' session nonces.
     */
    RemoteKey export(MemoryRegion region, long offset, long length, Set<RemoteAccess> access, int localNonce,
            int peerNonce) {
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(access, "access");
        if (region.protectionDomain() != connection.protectionDomain()) {
            throw new IllegalArgumentException(region.ref() + " is on " + region.protectionDomain().ref() + ", not on "
                    + connection.protectionDomain().ref() + " of " + session.name() + ": exporting it for " + access
                    + " needs a region of the connection's PD (an rkey is valid on the QPs of its own PD only); "
                    + "register it with Connection.registerMemory");
        }
        long id = ids.incrementAndGet();
        RemoteExport e = region.exportRemotely(id, session.withPeer(), offset, length, access, this);
        live.put(id, e);
        if (ended) {
            // The session ended while the export was made: it ends too, and the caller learns why.
            e.end();
            live.remove(id);
            throw session.closedBecause("ended");
        }
        return new RemoteKey(id, region.address() + offset, length, region.rkey(), access, localNonce, peerNonce);
    }

    /** {@link RemoteExport#revoke()} of the export {@code key} opens; nothing when it ended already. */
    void revoke(RemoteKey key) {
        RemoteExport e = live.get(key.exportId());
        if (e != null) {
            e.revoke();
        }
    }

    List<RemoteExport> live() {
        return live.values().stream().sorted(Comparator.comparingLong(RemoteExport::id)).toList();
    }

    // ---- revocation -------------------------------------------------------------------------------

    @Override
    public String describe(RemoteExport e) {
        return "revoke " + e + " from " + e.holder() + ": send REVOKE, wait up to " + timeout() + " for the peer's "
                + "REVOKE_ACK (its operations in flight complete first), else disconnect the connection";
    }

    /**
     * Tells the peer and waits for its ACK, bounded by the disconnect timeout; past it, disconnects. Ends the
     * export either way: once this returns, the peer can no longer reach the region through it.
     *
     * @throws IllegalStateException on the completion thread that would deliver the ACK
     */
    @Override
    public void revoke(RemoteExport e) {
        if (ended || live.get(e.id()) != e) {
            e.end();
            return;
        }
        if (connection.onCompletionThread()) {
            // Refused before anything changes: the export stays, and so does the hold on its region.
            throw new IllegalStateException("revoking " + e + " of " + session.name() + " waits for the peer's "
                    + "REVOKE_ACK, which this completion thread delivers: revoke (or close the region) from "
                    + "another thread, e.g. a ...Async stage of the future");
        }
        try {
            CompletableFuture<Void> ack = new CompletableFuture<>();
            CompletableFuture<Void> earlier = awaitingAck.putIfAbsent(e.id(), ack);
            if (earlier != null) {
                ack = earlier;
            } else {
                outbox.submit(OutboundFrame.control(FrameKind.REVOKE, 0, e.id(), Message.empty()));
            }
            if (ended) {
                // The session ended as the revocation began: its QP is in the error state already.
                ack.completeExceptionally(session.closedBecause("ended"));
            }
            Duration bound = timeout();
            try {
                ack.get(bound.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException noAck) {
                LOG.log(Level.WARNING, () -> session.name() + ": no REVOKE_ACK for " + e + " within " + bound
                        + "; disconnecting so that the peer can no longer reach " + e.region());
                giveUp();
            } catch (ExecutionException sessionEnded) {
                // The session ended meanwhile: its QP is in the error state.
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                giveUp();
            }
        } finally {
            awaitingAck.remove(e.id());
            live.remove(e.id(), e);
            e.end();
        }
    }

    /**
     * The peer did not acknowledge: {@code rdma_disconnect(3)} now (the QP goes to the error state, so nothing
     * reaches the region any more), the rest of the close after the caller's (a region's close that runs on
     * this thread may be part of the connection's own).
     */
    private void giveUp() {
        try {
            if (connection.state() == ConnectionState.CONNECTED) {
                connection.disconnect();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> session.name() + ": rdma_disconnect after an unacknowledged REVOKE failed", e);
        }
        try {
            workers.execute(() -> {
                try {
                    connection.close();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, () -> session.name() + ": closing after an unacknowledged REVOKE failed", e);
                }
            });
        } catch (RejectedExecutionException closing) {
            // The manager is closing, and closes the connection itself.
        }
    }

    /** The peer's REVOKE_ACK for export {@code id}, on the completion loop's thread. */
    void acknowledged(long id) {
        CompletableFuture<Void> ack = awaitingAck.get(id);
        if (ack == null) {
            LOG.log(Level.DEBUG, () -> session.name() + ": REVOKE_ACK for export " + id + ", which is not being revoked");
            return;
        }
        ack.complete(null);
    }

    /** The session ended: every export ends, and revocations waiting for an ACK go on. */
    void sessionEnded(RuntimeException why) {
        ended = true;
        for (RemoteExport e : List.copyOf(live.values())) {
            live.remove(e.id());
            e.end();
        }
        awaitingAck.values().forEach(f -> f.completeExceptionally(why));
    }

    private Duration timeout() {
        return connection.cmId().channel().disconnectTimeout();
    }
}
