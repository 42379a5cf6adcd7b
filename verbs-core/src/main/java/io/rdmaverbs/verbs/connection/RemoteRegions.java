package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.VerbsException;

import org.jspecify.annotations.Nullable;

/**
 * The handles a {@link Session} holds on memory its peer exported ({@link RemoteRegion}), and the path their
 * operations take: READs, WRITEs and atomics through the session's {@link Outbox} (its send queue and
 * initiator-depth budgets), in chunks of at most {@link Session#READ_CHUNK} bytes. A local buffer in a region
 * of the connection's PD is used where it is; any other is copied once through {@link BounceBuffers}.
 *
 * <p>The peer's REVOKE closes every handle on that export ("revoked by the peer at ..."), waits (off the
 * completion loop) until their operations in flight completed, and only then answers REVOKE_ACK: the peer
 * deregisters the memory after that, so no operation of this side can meet a deregistered rkey. When the
 * session ends, every handle closes with the reason.
 */
final class RemoteRegions implements RemoteRegion.Path {

    private static final System.Logger LOG = System.getLogger(RemoteRegions.class.getName());

    private final Session session;
    private final Connection connection;
    private final Outbox outbox;
    private final Executor workers;
    private final BounceBuffers bounce;
    private final AtomicLong handles = new AtomicLong();
    /** The handles of each export, open or closed by the application: a revocation waits for all of them. */
    private final Map<Long, List<RemoteRegion>> byExport = new HashMap<>();
    private final Map<Long, Instant> revoked = new HashMap<>();
    private final Set<Operation<?>> inFlight = ConcurrentHashMap.newKeySet();
    private @Nullable String ended;

    RemoteRegions(Session session, Connection connection, Outbox outbox, Executor workers) {
        this.session = session;
        this.connection = connection;
        this.outbox = outbox;
        this.workers = workers;
        this.bounce = new BounceBuffers(connection, session.name());
    }

    // ---- handles ----------------------------------------------------------------------------------

    /**
     * A handle on the memory {@code key} opens, when the key was exported to this side on this session.
     *
     * @throws IllegalArgumentException for a key of another session, this side's own, or a revoked export
     */
    RemoteRegion open(RemoteKey key, int localNonce, int peerNonce) {
        key.requireExportedTo(session.name(), localNonce, peerNonce);
        synchronized (this) {
            Instant at = revoked.get(key.exportId());
            if (at != null) {
                throw new IllegalArgumentException(session.name() + ": " + key + " was revoked by the peer at " + at);
            }
        }
        RemoteRegion r = connection.queuePair().remoteRegion(new RemoteRegion.Target(session.withPeer(), key.exportId(),
                key.address(), key.length(), key.rkey(), key.access()), this,
                session.name() + "/remote-" + key.exportId() + "." + handles.incrementAndGet());
        String refusal;
        synchronized (this) {
            Instant at = revoked.get(key.exportId());
            refusal = ended != null ? ended : at != null ? "revoked by the peer at " + at : null;
            if (refusal == null) {
                List<RemoteRegion> list = byExport.computeIfAbsent(key.exportId(), id -> new ArrayList<>());
                list.removeIf(h -> h.isClosed() && h.operationsInFlight() == 0);
                list.add(r);
            }
        }
        if (refusal != null) {
            // The revocation or the end came while the handle was made: it is closed for that reason.
            r.forget(refusal);
            throw session.closedBecause(refusal);
        }
        return r;
    }

    /** The handles held now, open ones only. */
    synchronized List<RemoteRegion> open() {
        List<RemoteRegion> out = new ArrayList<>();
        byExport.values().forEach(l -> l.stream().filter(RemoteRegion::isOpen).forEach(out::add));
        return out;
    }

    /**
     * The peer's REVOKE of export {@code exportId}, on the completion loop's thread: its handles close now;
     * the ACK waits, on a worker, for their operations in flight.
     */
    void revokedByPeer(long exportId) {
        Instant at = Instant.now();
        List<RemoteRegion> withdrawn;
        synchronized (this) {
            revoked.put(exportId, at);
            withdrawn = byExport.remove(exportId);
        }
        List<RemoteRegion> list = withdrawn == null ? List.of() : withdrawn;
        for (RemoteRegion r : list) {
            r.forget("revoked by the peer at " + at);
        }
        try {
            workers.execute(() -> acknowledgeWhenIdle(exportId, list));
        } catch (RejectedExecutionException closing) {
            // The manager is closing: the connection goes, and the peer's revocation ends with it.
        }
    }

    private void acknowledgeWhenIdle(long exportId, List<RemoteRegion> list) {
        Duration bound = connection.cmId().channel().disconnectTimeout();
        long deadline = System.nanoTime() + bound.toNanos();
        for (RemoteRegion r : list) {
            if (!r.awaitIdle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                LOG.log(Level.WARNING, () -> session.name() + ": " + r + " still has " + r.operationsInFlight()
                        + " operation(s) in flight " + bound + " after the peer revoked export " + exportId
                        + "; not acknowledging (the peer disconnects instead)");
                return;
            }
        }
        outbox.submit(OutboundFrame.control(FrameKind.REVOKE_ACK, 0, exportId, Message.empty()));
    }

    /** The session ended: every handle closes, saying why. */
    void sessionEnded(String reason) {
        String why = "its connection " + session.name() + " ended at " + Instant.now() + " (" + reason + ")";
        List<RemoteRegion> all = new ArrayList<>();
        synchronized (this) {
            ended = why;
            byExport.values().forEach(all::addAll);
        }
        for (RemoteRegion r : all) {
            r.forget(why);
        }
    }

    /**
     * The release, once the QP flushed (or the close's deadline passed): an operation whose completion never
     * came fails now, and the bounce memory is deregistered.
     */
    void release() {
        for (Operation<?> op : List.copyOf(inFlight)) {
            op.abandon(session.closedBecause("released before its completion came"));
        }
        bounce.release();
    }

    // ---- the path ---------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Void> read(RemoteRegion region, long remoteAddress, MemorySegment destination) {
        MemoryRegion local = connection.regionOf(destination);
        if (local != null && local.access().contains(AccessFlag.LOCAL_WRITE)) {
            return start(new Operation<Void>(region, SendOpcode.RDMA_READ, null, b -> null), local,
                    destination.address() - local.address(), destination.byteSize(), remoteAddress, 0, 0);
        }
        BounceBuffers.Bounce b = bounce.take(destination.byteSize());
        return start(new Operation<Void>(region, SendOpcode.RDMA_READ, b, through -> {
            MemorySegment.copy(b.segment(), 0, destination, 0, destination.byteSize());
            return null;
        }), b.region(), b.offset(), destination.byteSize(), remoteAddress, 0, 0);
    }

    @Override
    public CompletableFuture<Void> write(RemoteRegion region, long remoteAddress, MemorySegment source) {
        MemoryRegion local = connection.regionOf(source);
        if (local != null) {
            return start(new Operation<Void>(region, SendOpcode.RDMA_WRITE, null, b -> null), local,
                    source.address() - local.address(), source.byteSize(), remoteAddress, 0, 0);
        }
        BounceBuffers.Bounce b = bounce.take(source.byteSize());
        try {
            MemorySegment.copy(source, 0, b.segment(), 0, source.byteSize());
        } catch (RuntimeException e) {
            bounce.give(b);
            throw e;
        }
        return start(new Operation<Void>(region, SendOpcode.RDMA_WRITE, b, through -> null), b.region(), b.offset(),
                source.byteSize(), remoteAddress, 0, 0);
    }

    @Override
    public CompletableFuture<Long> atomic(RemoteRegion region, SendOpcode opcode, long remoteAddress, long compareAdd,
            long swap) {
        BounceBuffers.Bounce b = bounce.take(Long.BYTES);
        return start(new Operation<Long>(region, opcode, b, through -> b.segment().get(ValueLayout.JAVA_LONG, 0)),
                b.region(), b.offset(), Long.BYTES, remoteAddress, compareAdd, swap);
    }

    /** Posts {@code op} in chunks through the outbox; a chunk refused (the session ended) fails it. */
    private <T> CompletableFuture<T> start(Operation<T> op, MemoryRegion local, long localOffset, long length,
            long remoteAddress, long compareAdd, long swap) {
        int chunks = (int) ((length + Session.READ_CHUNK - 1) / Session.READ_CHUNK);
        op.chunksLeft.set(chunks);
        inFlight.add(op);
        for (int i = 0; i < chunks; i++) {
            long off = (long) i * Session.READ_CHUNK;
            int n = (int) Math.min(Session.READ_CHUNK, length - off);
            try {
                outbox.submit(new RemoteOp(op.opcode, local, localOffset + off, n, remoteAddress + off,
                        op.region.target().rkey(), compareAdd, swap, op::chunkCompleted));
            } catch (RuntimeException refused) {
                op.fail(refused);
                for (int j = i; j < chunks; j++) {
                    op.chunkCompleted(null);
                }
                break;
            }
        }
        return op.done;
    }

    /** One operation of a handle: its chunks, the first failure, and what to do with the result. */
    private final class Operation<T> {
        final RemoteRegion region;
        final SendOpcode opcode;
        final BounceBuffers.@Nullable Bounce through;
        /** The result from the bounce memory the operation went through (null: it went in place). */
        final Function<BounceBuffers.@Nullable Bounce, T> result;
        final CompletableFuture<T> done = new CompletableFuture<>();
        final AtomicInteger chunksLeft = new AtomicInteger();
        final AtomicBoolean finished = new AtomicBoolean();
        volatile @Nullable RuntimeException failure;

        Operation(RemoteRegion region, SendOpcode opcode, BounceBuffers.@Nullable Bounce through,
                Function<BounceBuffers.@Nullable Bounce, T> result) {
            this.region = region;
            this.opcode = opcode;
            this.through = through;
            this.result = result;
        }

        /** A chunk's completion, on the loop thread; null for a chunk that was never posted. */
        void chunkCompleted(@Nullable WcStatus status) {
            if (status != null && status != WcStatus.SUCCESS) {
                fail(status == WcStatus.WR_FLUSH_ERR
                        ? session.closedBecause("the IBV_WR_" + opcode + " was flushed")
                        : new VerbsException("IBV_WR_" + opcode, region.ref().toString(), null, "completed with "
                                + "IBV_WC_" + status + "; the connection " + session.name() + " ends (its QP is in "
                                + "the error state)"));
            }
            if (chunksLeft.decrementAndGet() == 0) {
                finish();
            }
        }

        void fail(RuntimeException why) {
            if (failure == null) {
                failure = why;
            }
        }

        /** The session is released before the completions came: fails now, freeing its bounce memory. */
        void abandon(RuntimeException why) {
            fail(why);
            finish();
        }

        private void finish() {
            if (!finished.compareAndSet(false, true)) {
                return;
            }
            inFlight.remove(this);
            T value = null;
            RuntimeException why = failure;
            if (why == null) {
                try {
                    value = result.apply(through);
                } catch (RuntimeException e) {
                    why = e;
                }
            }
            if (through != null) {
                bounce.give(through);
            }
            if (why != null) {
                done.completeExceptionally(why);
            } else {
                done.complete(value);
            }
        }
    }
}
