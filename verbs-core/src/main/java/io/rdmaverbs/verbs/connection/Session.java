package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.rdmaverbs.verbs.MemoryHold;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.RemoteExport;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.attr.RemoteAccess;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;

import org.jspecify.annotations.Nullable;

/**
 * The data plane of one messaging {@link Connection}: messages and requests in both directions, many in
 * flight at once, over the session protocol (docs/connections.md, "The wire protocol"): each SEND is a
 * frame with a small header (kind, credits, length, correlation id), replies are matched to their request
 * by correlation id, and a sender never posts a SEND the receiver has no buffer posted for (credits), so
 * the wire sees no RNR NAK. A message larger than the peer's receive buffers goes by rendezvous: the peer
 * reads it with RDMA READ from this side's memory, and order is kept per connection either way.
 *
 * <pre>{@code
 * CompletableFuture<Message> reply = session.request(Message.of(bytes));
 * session.send(Message.of(segment).withHeader("content-type", "application/json"));
 * }</pre>
 *
 * <p>Every method is asynchronous ({@code *AndWait} variants block) and thread-safe. Futures complete on
 * the connection's completion loop thread: do nothing there that blocks (use the {@code ...Async} stages of
 * the future for that). Once the session ended (closed, disconnected, a work request failed), every call
 * fails with {@link ResourceClosedException} naming the connection and why.
 */
public final class Session {

    private static final System.Logger LOG = System.getLogger(Session.class.getName());
    /** The largest RDMA READ of a rendezvous: a large message is read in chunks of this. */
    static final int READ_CHUNK = 1 << 20;
    /**
     * How long the end of a session that ended by itself waits for what the QP's error state flushes, so that
     * its {@link SessionEnd} lists those completions too ({@code 16 x RECV WR_FLUSH_ERR}).
     */
    static final Duration FLUSH_GRACE = Duration.ofMillis(100);
    /** How long a send before the active side's ESTABLISHED was handled waits for it. */
    private static final Duration HELLO_WAIT = Duration.ofSeconds(5);

    private final Connection connection;
    private final String name;
    private final SessionSpec spec;
    private final Outbox outbox;
    private final SessionStatistics statistics = new SessionStatistics();
    private final PendingRequests pending;
    private final Deliveries deliveries = new Deliveries();
    /** Per receive buffer, what posts it again once its message was handled: made once, not per message. */
    private final Runnable[] reposts;
    private final LargeTransfers large;
    private final Exports exports;
    private final RemoteRegions remote;
    private final Executor handlers;
    private final ScheduledExecutorService timers;
    /** Completed with the end, once the flush is in (or its grace is over). */
    private final CompletableFuture<SessionEnd> ended = new CompletableFuture<>();
    /** Why the session ended, set at once when it does: calls are refused from then on. */
    private volatile @Nullable SessionEnd ending;
    private final Map<String, Integer> failedCompletions = new LinkedHashMap<>();
    private volatile @Nullable Hello peer;
    private volatile @Nullable ScheduledFuture<?> keepalive;
    /** This side's session nonce, in its hello; chosen before the hello is sent ({@link #prepare}). */
    private volatile int nonce;

    Session(Connection connection, SessionSpec spec, Executor lane, Executor workers,
            ScheduledExecutorService timers, int readResources) {
        this.connection = connection;
        this.name = connection.name();
        this.spec = spec;
        this.timers = timers;
        this.handlers = spec.handlerExecutor() != null ? spec.handlerExecutor() : lane;
        this.outbox = new Outbox(this, connection.queuePair(), connection.buffers(), readResources);
        this.reposts = new Runnable[connection.buffers().receiveCount()];
        for (int i = 0; i < reposts.length; i++) {
            int index = i;
            reposts[i] = () -> outbox.reposted(index, true);
        }
        this.pending = new PendingRequests(name, statistics, timers);
        this.large = new LargeTransfers(this, connection, outbox, workers);
        this.exports = new Exports(this, connection, outbox, workers);
        this.remote = new RemoteRegions(this, connection, outbox, workers);
    }

    // ---- what it is -----------------------------------------------------------------------------

    public Connection connection() {
        return connection;
    }

    /** The connection's name, as reports and errors give it. */
    public String name() {
        return name;
    }

    public SessionSpec spec() {
        return spec;
    }

    public @Nullable InetSocketAddress peerAddress() {
        return connection.peerAddress();
    }

    /** Whether the session is up: connected, handshake done, not ended. */
    public boolean isOpen() {
        return ending == null && connection.state() == ConnectionState.CONNECTED;
    }

    /**
     * Completes, never exceptionally, when the session has ended, saying why: at once for a close on this
     * side; for an end by itself (the peer's disconnect, a failed work request) once the QP's error state
     * flushed every work request back, or after 100 ms ({@code FLUSH_GRACE}), so that the completions in
     * error are all in the summary.
     */
    public CompletableFuture<SessionEnd> closeFuture() {
        return ended.copy();
    }

    public SessionStatistics statistics() {
        return statistics;
    }

    /** The largest payload sent without a rendezvous: the peer's receive buffer, less the header. */
    public long eagerLimit() {
        Hello p = peer;
        return p == null ? 0 : outbox.eagerLimit(p.receiveBufferSize()) - FrameHeader.BYTES;
    }

    /** Requests sent and not yet answered. */
    public int pendingRequests() {
        return pending.size();
    }

    // ---- sending ----------------------------------------------------------------------------------

    /**
     * Sends a one-way message; the future completes once the payload may be reused (its SEND completed,
     * or, for a large message, the peer read it), and fails with {@link ResourceClosedException} when the
     * session ends first.
     */
    public CompletableFuture<Void> send(Message message) {
        Objects.requireNonNull(message, "message");
        return submit(FrameKind.MESSAGE, 0, message);
    }

    public CompletableFuture<Void> send(byte[] payload) {
        return send(Message.of(payload));
    }

    /** {@link #send(Message)}, waiting for it. */
    public void sendAndWait(Message message) {
        await(send(message));
    }

    /** A request, answered within the spec's request timeout. */
    public CompletableFuture<Message> request(Message message) {
        return request(message, spec.requestTimeout());
    }

    /**
     * Sends a request and completes with its reply (matched by correlation id, whatever else arrives
     * meanwhile). Fails with {@link TimeoutException} when no reply comes within {@code timeout} (a reply
     * that comes later is counted and dropped), with {@link RemoteErrorException} when the peer answers with
     * an error, and with {@link ResourceClosedException} when the session ends first.
     */
    public CompletableFuture<Message> request(Message message, Duration timeout) {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(timeout, "timeout");
        if (!timeout.isPositive()) {
            throw new IllegalArgumentException("a request timeout must be positive, was " + timeout);
        }
        requireOpen();
        PendingRequests.Pending p = pending.open(timeout);
        CompletableFuture<Void> sent;
        try {
            sent = submit(FrameKind.REQUEST, p.id(), message);
        } catch (RuntimeException e) {
            pending.abandon(p.id(), e);
            throw e;
        }
        sent.whenComplete((v, e) -> {
            if (e != null) {
                pending.abandon(p.id(), Futures.cause(e));
            }
        });
        return p.reply();
    }

    public CompletableFuture<Message> request(byte[] payload) {
        return request(Message.of(payload));
    }

    /** {@link #request(Message, Duration)}, waiting for the reply. */
    public Message requestAndWait(Message message, Duration timeout) {
        return await(request(message, timeout));
    }

    CompletableFuture<Void> sendReply(long correlation, Message reply) {
        return submit(FrameKind.REPLY, correlation, reply);
    }

    CompletableFuture<Void> sendError(long correlation, String type, String message, Map<String, String> headers) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.put(RemoteErrorException.TYPE_HEADER, type);
        all.put(RemoteErrorException.MESSAGE_HEADER, truncate(message));
        return submit(FrameKind.ERROR, correlation, Message.empty().withHeaders(all));
    }

    private CompletableFuture<Void> submit(FrameKind kind, long correlation, Message message) {
        if (message.length() > spec.maxMessageSize()) {
            throw new IllegalArgumentException(name + ": a message of " + message.length() + " bytes is larger than "
                    + "the session's max message size " + spec.maxMessageSize());
        }
        requireOpen();
        Hello p = peerHello();
        long headerBytes = FrameHeader.BYTES + FrameHeader.headersSize(message.headers());
        if (headerBytes + RendezvousDescriptor.BYTES > outbox.eagerLimit(p.receiveBufferSize())) {
            throw new IllegalArgumentException(name + ": " + (headerBytes - FrameHeader.BYTES) + " bytes of headers "
                    + "do not fit the peer's receive buffers of " + p.receiveBufferSize() + " bytes");
        }
        MemoryRegion source = connection.regionOf(message.payload());
        CompletableFuture<Void> sent;
        boolean eager = headerBytes + message.length() <= outbox.eagerLimit(p.receiveBufferSize());
        if (eager) {
            OutboundFrame frame = OutboundFrame.eager(kind, correlation, message, source);
            outbox.submit(frame);
            sent = frame.sent;
        } else {
            sent = large.send(kind, correlation, message, source);
        }
        statistics.sent(message.length(), !eager);
        return sent;
    }

    // ---- one-sided RDMA ---------------------------------------------------------------------------

    /**
     * Exports bytes {@code offset..offset+length} of {@code region} to the peer for {@code access}: the key to
     * send it (in any message), which the peer opens with {@link #remoteRegion(byte[])}. The region must be
     * on the connection's PD ({@link Connection#registerMemory}) and registered with the access flags
     * {@code access} needs. It is then held by this connection: a strict close is refused naming the peer,
     * the rkey and since when; a cascade close revokes the export first ({@link #revoke}).
     *
     * @throws IllegalArgumentException for a region of another PD, a slice outside it, access it does not allow
     */
    public RemoteKey export(MemoryRegion region, long offset, long length, Set<RemoteAccess> access) {
        requireOpen();
        return exports.export(region, offset, length, access, nonce, peerHello().nonce());
    }

    /** {@link #export(MemoryRegion, long, long, Set)} of the whole region. */
    public RemoteKey export(MemoryRegion region, Set<RemoteAccess> access) {
        return export(region, 0, region.length(), access);
    }

    /**
     * Withdraws the export {@code key} opens: the peer closes its handles on it, lets their operations in
     * flight complete and acknowledges; without an acknowledgement within the event channel's disconnect
     * timeout the connection is disconnected. Blocks until then; not on a completion thread.
     */
    public void revoke(RemoteKey key) {
        exports.revoke(Objects.requireNonNull(key, "key"));
    }

    /** The exports this side holds for the peer now, oldest first. */
    public List<RemoteExport> exports() {
        return exports.live();
    }

    /**
     * Opens a key the peer exported on this session ({@link RemoteKey#toByteArray()}): a handle for RDMA READ,
     * WRITE and atomics on that memory, a graph resource closed with the connection or when the peer revokes
     * the export.
     *
     * @throws IllegalArgumentException for bytes that are no key, a key of another session or of this side
     */
    public RemoteRegion remoteRegion(byte[] packedKey) {
        return remoteRegion(RemoteKey.unpack(Objects.requireNonNull(packedKey, "packedKey")));
    }

    /** {@link #remoteRegion(byte[])} of an unpacked key. */
    public RemoteRegion remoteRegion(RemoteKey key) {
        Objects.requireNonNull(key, "key");
        requireOpen();
        return remote.open(key, nonce, peerHello().nonce());
    }

    /** The open handles on the peer's exports. */
    public List<RemoteRegion> remoteRegions() {
        return remote.open();
    }

    /** The connection and its peer, as exports and remote regions name who holds them. */
    String withPeer() {
        InetSocketAddress a = peerAddress();
        String peerText = a == null ? "(no peer)" : a.getAddress() == null ? a.getHostString() + ":" + a.getPort()
                : "[" + a.getAddress().getHostAddress() + "]:" + a.getPort();
        return "connection '" + name + "' to " + peerText;
    }

    /** This side's session nonce, for its hello. */
    int nonce() {
        return nonce;
    }

    // ---- the handshake and the end --------------------------------------------------------------

    /**
     * Posts every receive buffer, before the handshake. The passive side knows the peer's hello from its
     * request already: what it sends before ESTABLISHED (a reply to a request that came with the RTU) waits
     * in the outbox until then.
     */
    void prepare(@Nullable Hello requesterHello) {
        nonce = Hello.newNonce(requesterHello);
        peer = requesterHello;
        outbox.postInitialReceives();
    }

    /** ESTABLISHED, with the peer's hello: frames go from now on. */
    void start(Hello peerHello) {
        peer = peerHello;
        outbox.start(peerHello.receiveBuffers());
        Duration k = spec.keepalive();
        if (k.isPositive()) {
            long nanos = k.toNanos();
            keepalive = timers.scheduleWithFixedDelay(() -> outbox.keepalive(nanos), nanos, Math.max(1, nanos / 2),
                    TimeUnit.NANOSECONDS);
        }
    }

    /** The connection is down (DISCONNECTED, a failed connect), on the CM loop thread. */
    void connectionDown(String reason, boolean byPeer) {
        end(reason, byPeer, false);
    }

    /** This side closes it: nothing more is sent or delivered; what is in flight flushes. */
    void close() {
        end("closed", false, true);
    }

    /**
     * Ends the session once: refuses new calls, fails what waits (sends, requests, transfers) with
     * {@link ResourceClosedException}, and completes {@link #closeFuture()}. When a work request failed, it
     * also disconnects, so that the peer learns of it and this QP's work requests flush.
     */
    private void end(String reason, boolean byPeer, boolean local) {
        SessionEnd end;
        synchronized (failedCompletions) {
            if (ending != null) {
                return;
            }
            end = new SessionEnd(reason, byPeer, local, List.of());
            ending = end;
        }
        ScheduledFuture<?> k = keepalive;
        if (k != null) {
            k.cancel(false);
        }
        ResourceClosedException why = closedBecause(reason);
        outbox.close(why);
        pending.failAll(why);
        large.failAll(why);
        exports.sessionEnded(why);
        remote.sessionEnded(reason);
        if (local || outbox.outstanding() == 0) {
            reportEnd();
        } else {
            try {
                timers.schedule(this::reportEnd, FLUSH_GRACE.toNanos(), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                reportEnd();
            }
        }
    }

    /** Completes {@link #closeFuture()} with the end and the completions in error so far; once. */
    private void reportEnd() {
        SessionEnd end = ending;
        if (end == null || ended.isDone()) {
            return;
        }
        ended.complete(new SessionEnd(end.reason(), end.byPeer(), end.local(), failedCompletions()));
    }

    /** The exception every call gets once the session ended, or {@code reason} ended it. */
    ResourceClosedException closedBecause(String reason) {
        SessionEnd end = ending;
        String why = end != null ? end.reason() : reason;
        return new ResourceClosedException(connection.cmId().ref(), "ended for " + name + " (" + why + ")");
    }

    /**
     * Whether the session ended. Not the negation of {@link #isOpen()}: before the active side's ESTABLISHED is
     * handled the session is not open yet, and the peer's first frames may already be arriving.
     */
    boolean hasEnded() {
        return ending != null;
    }

    private void requireOpen() {
        if (ending != null) {
            throw closedBecause("ended");
        }
    }

    /**
     * The peer's hello. The active side has it with ESTABLISHED, which its event loop may hand on a moment
     * after the peer's first frames arrived (a handler answering one then waits for it, briefly).
     */
    private Hello peerHello() {
        Hello p = peer;
        if (p == null && connection.state() == ConnectionState.CONNECTING) {
            connection.awaitState(ConnectionState.CONNECTED, HELLO_WAIT);
            p = peer;
        }
        if (p == null) {
            throw new IllegalStateException(name + ": the session is not established (the connection is "
                    + connection.state() + ")");
        }
        return p;
    }

    /**
     * Waits until every work request posted came back (the flush of a close), the deadline, or an
     * interrupt (whose status stays set).
     */
    boolean awaitFlushed(long deadlineNanos) {
        while (outbox.outstanding() > 0) {
            if (System.nanoTime() - deadlineNanos >= 0 || Thread.currentThread().isInterrupted()) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        return true;
    }

    /** Frees the session's requests; the connection then releases its resources. */
    void release() {
        reportEnd();
        ScheduledFuture<?> k = keepalive;
        if (k != null) {
            k.cancel(false);
        }
        large.releaseAll();
        remote.release();
        outbox.release();
    }

    /** Work requests posted and not yet completed. */
    int outstanding() {
        return outbox.outstanding();
    }

    // ---- completions, on the completion loop's thread --------------------------------------------

    /** One work completion of the connection's CQ. */
    void completed(WorkCompletions wcs, int i) {
        long wrId = wcs.wrId(i);
        WcStatus status = wcs.status(i);
        long value = WrIds.value(wrId);
        switch (WrIds.tag(wrId)) {
            case WrIds.RECEIVE -> {
                outbox.receiveCompleted();
                if (status == WcStatus.SUCCESS) {
                    received((int) value, wcs.byteLength(i));
                } else {
                    failed("RECV", status);
                }
            }
            case WrIds.SEND -> {
                outbox.sendCompleted((int) value, status);
                if (status != WcStatus.SUCCESS) {
                    failed("SEND", status);
                }
            }
            case WrIds.ONE_SIDED -> {
                outbox.opCompleted(value, status);
                if (status != WcStatus.SUCCESS) {
                    failed(String.valueOf(wcs.opcode(i)), status);
                }
            }
            default -> LOG.log(Level.WARNING, () -> name + ": a completion with work request id 0x"
                    + Long.toHexString(wrId) + " this session never posted");
        }
        if (ending != null && outbox.outstanding() == 0) {
            reportEnd();
        }
    }

    /** A failed completion: a flush is counted; anything else ends the session (and disconnects). */
    private void failed(String what, WcStatus status) {
        synchronized (failedCompletions) {
            failedCompletions.merge(what + " " + status.name(), 1, Integer::sum);
        }
        if (status != WcStatus.WR_FLUSH_ERR && ending == null) {
            end("a work request completed in error", false, false);
            disconnectQuietly();
        }
    }

    private List<String> summary() {
        List<String> out = new ArrayList<>();
        failedCompletions.forEach((what, n) -> out.add(n + " x " + what));
        return out;
    }

    /** The completions in error so far, summarised as {@link SessionEnd#failedCompletions()} has them. */
    List<String> failedCompletions() {
        synchronized (failedCompletions) {
            return summary();
        }
    }

    private void disconnectQuietly() {
        try {
            if (connection.state() == ConnectionState.CONNECTED) {
                connection.disconnect();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> name + ": rdma_disconnect after a failed completion failed", e);
        }
    }

    private void received(int index, int bytes) {
        MemorySegment buffer = connection.buffers().receiveBuffer(index);
        FrameHeader h;
        try {
            h = FrameHeader.read(buffer, bytes);
        } catch (ProtocolException e) {
            protocolBroken(e);
            return;
        }
        outbox.granted(h.credits());
        if (ending != null) {
            return;
        }
        switch (h.kind()) {
            case CREDIT -> outbox.reposted(index, false);
            case KEEPALIVE -> outbox.reposted(index, true);
            case REPLY -> {
                Message reply = Message.received(buffer.asSlice(h.payloadOffset(), h.length()), h.readHeaders(buffer))
                        .detached();
                outbox.reposted(index, true);
                statistics.received(reply.length(), false);
                pending.complete(h.correlation(), reply);
            }
            case ERROR -> {
                Map<String, String> headers = h.readHeaders(buffer);
                outbox.reposted(index, true);
                pending.fail(h.correlation(), new RemoteErrorException(name, headers));
            }
            case MESSAGE, REQUEST -> {
                MemorySegment payload = buffer.asSlice(h.payloadOffset(), h.length());
                Map<String, String> headers = h.readHeaders(buffer);
                Runnable repost = reposts[index];
                deliveries.arrived(() -> deliver(h.kind() == FrameKind.REQUEST, h.correlation(), payload,
                        connection.buffers().region(), headers, false, repost));
            }
            case RENDEZVOUS -> {
                RendezvousDescriptor d;
                try {
                    d = RendezvousDescriptor.read(buffer, h.payloadOffset());
                } catch (ProtocolException e) {
                    protocolBroken(e);
                    return;
                }
                Map<String, String> headers = h.readHeaders(buffer);
                outbox.reposted(index, true);
                large.offered(h.correlation(), d, headers, d.carried() == FrameKind.REPLY ? null : deliveries.reserve());
            }
            case RENDEZVOUS_DONE -> {
                String refusal = h.length() > 0 ? Message.received(buffer.asSlice(h.payloadOffset(), h.length()),
                        Map.of()).asString() : null;
                outbox.reposted(index, true);
                large.done(h.correlation(), refusal);
            }
            case REVOKE -> {
                outbox.reposted(index, true);
                remote.revokedByPeer(h.correlation());
            }
            case REVOKE_ACK -> {
                outbox.reposted(index, true);
                exports.acknowledged(h.correlation());
            }
        }
    }

    private void protocolBroken(ProtocolException e) {
        LOG.log(Level.WARNING, () -> name + ": the peer broke the session protocol: " + e.getMessage()
                + "; disconnecting");
        end("the peer broke the session protocol: " + e.getMessage(), false, false);
        disconnectQuietly();
    }

    void deliveriesReady(Deliveries.Place place, Runnable dispatch) {
        deliveries.ready(place, dispatch);
    }

    void deliveriesSkip(Deliveries.Place place) {
        deliveries.skip(place);
    }

    /** A large REPLY was read: its request completes. */
    void largeReply(long correlation, Message reply) {
        statistics.received(reply.length(), true);
        pending.complete(correlation, reply);
    }

    /** The peer refused a large message this side offered: a large request fails with the peer's reason. */
    void largeRefused(long correlation, RuntimeException why) {
        if (correlation != 0) {
            pending.abandon(correlation, why);
        }
    }

    /**
     * Hands a received message to the handler executor; {@code release} posts its buffer again (or frees
     * the region of a large one) once the handler returned. The payload is given to the handler as a view
     * confined to the handler's thread and to its call, and that view's liveness is the call's, not the
     * memory's: so the delivery holds the memory of {@code region}, where the payload lies, from here until
     * the handler returned. A close of the connection meanwhile (on any thread) deregisters the region and
     * leaves its memory to the hold's end to free ({@link MemoryRegion#holdMemory}).
     */
    void deliver(boolean request, long correlation, MemorySegment payload, MemoryRegion region,
            Map<String, String> headers, boolean isLarge, Runnable release) {
        MemoryHold hold = ending != null ? null : region.holdMemory();
        if (hold == null) {
            release.run();
            return;
        }
        statistics.received(payload.byteSize(), isLarge);
        try {
            handlers.execute(() -> handle(request, correlation, payload, hold, headers, release));
        } catch (RejectedExecutionException closing) {
            hold.close();
            release.run();
        }
    }

    private void handle(boolean request, long correlation, MemorySegment payload, MemoryHold hold,
            Map<String, String> headers, Runnable release) {
        try (hold; Arena call = Arena.ofConfined()) {
            InboundMessage m = new InboundMessage(this, request, correlation,
                    Message.received(payload.reinterpret(call, null), headers));
            MessageHandler h = spec.handler();
            if (h == null) {
                if (request && m.claimQuietly()) {
                    sendError(correlation, "no-handler", name + " has no message handler", Map.of());
                }
                return;
            }
            try {
                h.onMessage(m);
            } catch (Exception | Error e) {
                if (m.claimQuietly()) {
                    sendError(correlation, e.getClass().getName(), String.valueOf(e.getMessage()), Map.of());
                } else {
                    LOG.log(Level.WARNING, () -> name + ": the message handler failed on " + m, e);
                }
                if (e instanceof Error error && !(e instanceof AssertionError)) {
                    throw error;
                }
            }
        } catch (ResourceClosedException ended) {
            // The session ended while the handler answered: the requester learns it from its own end.
        } finally {
            release.run();
        }
    }

    // ---- waiting ----------------------------------------------------------------------------------

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(false);
            throw new CancellationException("interrupted while waiting");
        } catch (ExecutionException e) {
            throw Futures.rethrow(e, CompletionException::new);
        }
    }

    private static String truncate(String message) {
        return message.length() <= 1024 ? message : message.substring(0, 1024) + "...";
    }

    @Override
    public String toString() {
        return "session '" + name + "' (" + (isOpen() ? "open" : ending != null ? "ended" : "starting") + ")";
    }
}
