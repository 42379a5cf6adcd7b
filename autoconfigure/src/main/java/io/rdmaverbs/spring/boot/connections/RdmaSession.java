package io.rdmaverbs.spring.boot.connections;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionBuffers;
import io.rdmaverbs.verbs.connection.ConnectionRejectedException;
import io.rdmaverbs.verbs.connection.ConnectionState;
import io.rdmaverbs.verbs.error.VerbsException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One established connection with the message-level helper on it: whole byte messages sent from, and
 * received into, the connection's registered buffers, completions taken from its completion channel on
 * a thread of the session, every receive posted again once its message was handled. An application
 * never writes a poll loop: it {@link #send}s, and a {@link RdmaMessageHandler} gets each message.
 *
 * <p>A message is one RC SEND into one receive buffer, so at most {@code buffer-size} bytes; an empty
 * SEND is the peers' heartbeat and never reaches a handler. A work completion in error (a retry
 * exhausted on a cut link, the flush of a disconnect) ends the session: its owner is told with the
 * statuses ({@code ibv_wc_status_str(3)} names) and reconnects or forgets it.
 *
 * <p>Threads: the completion thread only polls and hands messages on; handlers run serially on a
 * dispatch thread of the session, so a slow handler delays its own connection only, and may itself
 * {@link #send}.
 */
public final class RdmaSession {

    private static final Log logger = LogFactory.getLog(RdmaSession.class.getPackageName());

    /** Send work request ids carry this bit; receive ids are their buffer's index. */
    private static final long SEND_BIT = 1L << 62;
    /** How long a completion-thread wait lasts before it checks whether the session is closing. */
    private static final Duration EVENT_WAIT = Duration.ofMillis(200);
    /** How long the completion thread keeps collecting flushed completions after a failure or a disconnect. */
    static final Duration FLUSH_GRACE = Duration.ofMillis(100);
    private static final Duration FLUSH_STEP = Duration.ofMillis(20);
    /** How long a send may wait for a free send buffer, and then for its completion. */
    private static final Duration SEND_WAIT = Duration.ofSeconds(10);

    /** Told when the session ends by itself; never for {@link #close}. */
    @FunctionalInterface
    interface Watcher {
        void lost(RdmaSession session, String reason, List<String> failedCompletions);
    }

    private final String owner;
    private final Connection connection;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final CompletionChannel channel;
    private final ConnectionBuffers buffers;
    private final int bufferSize;
    private final int maxInline;
    private final @Nullable RdmaMessageHandler handler;
    private final Watcher watcher;

    private final Object postLock = new Object();
    private final Object requestOrder = new Object();
    private final SendRequest send;
    private final WorkCompletions completions;
    private final BlockingQueue<Integer> freeSendSlots;
    private final CompletableFuture<?>[] sendsInFlight;
    private final Queue<CompletableFuture<byte[]>> awaitingReply = new ConcurrentLinkedQueue<>();
    private final ExecutorService dispatch;
    private final Thread completionThread;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile @Nullable String endReason;
    private volatile boolean disconnectedByPeer;
    /** Set once a close began: from then on only the close decides when the completion thread ends. */
    private volatile boolean closing;
    /** When the close's flush phase ends the completion thread (System.nanoTime()); 0 before it. */
    private volatile long drainUntil;
    /** Work requests posted and not completed yet: the flush is over once each of them came back. */
    private final AtomicInteger outstanding;
    /** Completions with status WR_FLUSH_ERR polled: what the error state of the QP flushed. */
    private final AtomicInteger flushed = new AtomicInteger();
    /** When this side called rdma_disconnect, and when DISCONNECTED arrived (System.nanoTime(); 0: not yet). */
    private volatile long disconnectSentAt;
    private volatile long disconnectedAt;

    RdmaSession(String owner, Connection connection, @Nullable RdmaMessageHandler handler, Watcher watcher) {
        this.owner = owner;
        this.connection = connection;
        this.qp = connection.queuePair();
        this.cq = connection.completionQueue();
        this.channel = Objects.requireNonNull(connection.completionChannel(), "the connection has no completion channel");
        this.buffers = connection.buffers();
        this.bufferSize = Math.min(buffers.receiveSize(), buffers.sendSize());
        this.maxInline = qp.capabilities().maxInlineData();
        this.handler = handler;
        this.watcher = watcher;
        this.send = qp.newSendRequest(1);
        this.completions = cq.newWorkCompletions(16);
        int slots = buffers.sendCount();
        this.freeSendSlots = new ArrayBlockingQueue<>(slots);
        for (int i = 0; i < slots; i++) {
            freeSendSlots.add(i);
        }
        this.sendsInFlight = new CompletableFuture<?>[slots];
        // Connection.open posted every receive buffer before the handshake.
        this.outstanding = new AtomicInteger(buffers.receiveCount());
        this.dispatch = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("rdma-session-" + owner).factory());
        cq.requestNotification(false);
        this.completionThread = Thread.ofPlatform().daemon().name("rdma-completions-" + owner).unstarted(this::poll);
        // The completion thread reports it, with the work requests the disconnect flushed.
        connection.onDisconnect(c -> {
            disconnectedAt = System.nanoTime();
            disconnectedByPeer = !closing;
            channel.wakeWaiters();
        });
        // A DISCONNECTED that came before the listener was registered is not replayed to it.
        if (connection.state() == ConnectionState.DISCONNECTED) {
            disconnectedByPeer = true;
        }
        completionThread.start();
    }

    /** The other side's address. */
    public @Nullable InetSocketAddress peerAddress() {
        return connection.peerAddress();
    }

    public @Nullable InetSocketAddress localAddress() {
        return connection.localAddress();
    }

    /** The largest message, in bytes: the size of a receive buffer. */
    public int maxMessageSize() {
        return bufferSize;
    }

    /** Whether messages can still be sent: neither lost nor closed. */
    public boolean isOpen() {
        return !ended.get();
    }

    /** The verbs-core connection underneath: its queue pair, CQ and state. */
    public Connection connection() {
        return connection;
    }

    /**
     * Sends one message, 1 to {@link #maxMessageSize()} bytes: copied into a free send buffer, posted,
     * and awaited until its work completion.
     *
     * @throws RdmaSessionClosedException when the session is lost or closed, before or during the send
     */
    public void send(byte[] message) {
        if (message.length == 0 || message.length > bufferSize) {
            throw new IllegalArgumentException("a message is 1.." + bufferSize + " bytes (the connection's buffer-size), "
                    + "got " + message.length);
        }
        post(MemorySegment.ofArray(message));
    }

    /** Sends the bytes between the buffer's position and its limit, as {@link #send(byte[])}. */
    public void send(ByteBuffer message) {
        if (!message.hasRemaining() || message.remaining() > bufferSize) {
            throw new IllegalArgumentException("a message is 1.." + bufferSize + " bytes (the connection's buffer-size), "
                    + "got " + message.remaining());
        }
        post(MemorySegment.ofBuffer(message));
    }

    /**
     * Sends one message and returns the next message that arrives: a request and its reply. Messages
     * that arrive while no request waits go to the handler, if any.
     *
     * @throws TimeoutException when no reply came in time; the reply, if it comes later, is dropped
     */
    public byte[] request(byte[] message, Duration timeout) throws TimeoutException, InterruptedException {
        CompletableFuture<byte[]> reply = new CompletableFuture<>();
        try {
            // Replies are matched to requests by order: the queue's order must be the order on the wire.
            synchronized (requestOrder) {
                awaitingReply.add(reply);
                send(message);
            }
            return reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw closed(e.getCause());
        } catch (TimeoutException e) {
            throw new TimeoutException("no reply from " + owner + " within " + timeout);
        } finally {
            awaitingReply.remove(reply);
        }
    }

    /**
     * The heartbeat: an empty send, posted without waiting for it; skipped while every send buffer is in
     * flight (sends are outstanding anyway, and each of them completes or fails). On a dead link its
     * completion is in error once the transport's retries are exhausted (RETRY_EXC_ERR), which ends the
     * session on the completion thread.
     */
    void heartbeat() {
        if (ended.get()) {
            return;
        }
        try {
            post(MemorySegment.NULL, false);
        } catch (RdmaSessionClosedException | IllegalStateException | VerbsException e) {
            lose("heartbeat failed: " + e.getMessage());
        }
    }

    private void post(MemorySegment payload) {
        post(payload, true);
    }

    /** Copies {@code payload} into a free send buffer and posts it; {@code await}: until its completion. */
    private void post(MemorySegment payload, boolean await) {
        if (ended.get()) {
            throw closed(null);
        }
        Integer slot;
        try {
            slot = await ? freeSendSlots.poll(SEND_WAIT.toNanos(), TimeUnit.NANOSECONDS) : freeSendSlots.poll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw closed(e);
        }
        if (slot == null) {
            if (!await) {
                return;
            }
            throw new RdmaSessionClosedException(owner + ": every send buffer is still in flight after " + SEND_WAIT, null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        int length = (int) payload.byteSize();
        try {
            synchronized (postLock) {
                if (ended.get()) {
                    throw closed(null);
                }
                MemorySegment.copy(payload, 0, buffers.sendBuffer(slot), 0, length);
                sendsInFlight[slot] = done;
                send.clear().wrId(SEND_BIT | slot).flags(SendFlag.SIGNALED
                        | (length > 0 && length <= maxInline ? SendFlag.INLINE : 0));
                if (length == 0) {
                    send.segments(0);
                } else {
                    send.single(buffers.region(), buffers.sendOffset(slot), length);
                }
                // Counted before the post: its completion may be polled before postSend returns.
                outstanding.incrementAndGet();
                try {
                    qp.postSend(send);
                } catch (RuntimeException e) {
                    outstanding.decrementAndGet();
                    throw e;
                }
            }
        } catch (RuntimeException e) {
            sendsInFlight[slot] = null;
            freeSendSlots.add(slot);
            throw e;
        }
        if (!await) {
            return;
        }
        try {
            done.get(SEND_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw closed(e.getCause());
        } catch (TimeoutException e) {
            throw new RdmaSessionClosedException(owner + ": the send did not complete within " + SEND_WAIT, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw closed(e);
        }
    }

    /**
     * The completion thread: wait for an event, acknowledge it, re-arm, poll until empty. Once a work
     * request failed or the other side disconnected, it keeps polling for {@link #FLUSH_GRACE} so that the
     * report lists the work requests the error state flushed too (ibv_poll_cq(3): WR_FLUSH_ERR). Once a
     * close began, the close's {@link #flush} phase ends it instead.
     */
    private void poll() {
        try {
            pollUntilEnded();
        } finally {
            // Here, not in close(): a poll into freed native memory must be impossible.
            completions.close();
        }
    }

    private void pollUntilEnded() {
        List<String> failed = new ArrayList<>();
        long lossDeadline = 0;
        while (true) {
            long drain = drainUntil;
            try {
                Optional<CompletionQueue> event = channel.awaitEvent(drain == 0 && lossDeadline == 0 ? EVENT_WAIT
                        : FLUSH_STEP);
                if (event.isPresent()) {
                    event.get().acknowledgeEvents(1);
                    cq.requestNotification(false);
                }
                int n;
                while ((n = cq.poll(completions)) > 0) {
                    for (int i = 0; i < n; i++) {
                        complete(i, failed);
                    }
                }
            } catch (RuntimeException e) {
                if (!ended.get()) {
                    lose("polling " + cq.ref() + " failed: " + e.getMessage(), summary(failed));
                }
                return;
            }
            if (closing) {
                // Polled at least once since the flush began: over when every work request came back, or at the grace.
                if (drain != 0 && (outstanding.get() <= 0 || System.nanoTime() - drain >= 0)) {
                    return;
                }
            } else if (lossDeadline == 0 && (!failed.isEmpty() || disconnectedByPeer)) {
                lossDeadline = System.nanoTime() + FLUSH_GRACE.toNanos();
            } else if (lossDeadline != 0 && System.nanoTime() - lossDeadline >= 0) {
                lose(disconnectedByPeer ? "the other side disconnected (RDMA_CM_EVENT_DISCONNECTED)"
                        : "a work request completed in error", summary(failed));
                return;
            }
        }
    }

    /** {@code ["16 x RECV WR_FLUSH_ERR", "1 x SEND RETRY_EXC_ERR"]}, in order of first appearance. */
    private static List<String> summary(List<String> failed) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        failed.forEach(f -> counts.merge(f, 1, Integer::sum));
        return counts.entrySet().stream().map(e -> e.getValue() + " x " + e.getKey()).toList();
    }

    private void complete(int i, List<String> failed) {
        long wrId = completions.wrId(i);
        WcStatus status = completions.status(i);
        WcOpcode opcode = completions.opcode(i);
        boolean isSend = (wrId & SEND_BIT) != 0;
        outstanding.decrementAndGet();
        if (status == WcStatus.WR_FLUSH_ERR) {
            flushed.incrementAndGet();
        }
        if (status != WcStatus.SUCCESS) {
            failed.add((isSend ? "SEND" : "RECV") + " " + status.name());
            if (isSend) {
                finishSend((int) (wrId & ~SEND_BIT), new RdmaSessionClosedException(owner + ": the send completed with "
                        + status.name(), null));
            }
            return;
        }
        if (isSend) {
            finishSend((int) (wrId & ~SEND_BIT), null);
        } else if (opcode == WcOpcode.RECV) {
            received((int) wrId, completions.byteLength(i));
        }
    }

    private void finishSend(int slot, @Nullable Throwable failure) {
        CompletableFuture<?> done = sendsInFlight[slot];
        sendsInFlight[slot] = null;
        freeSendSlots.add(slot);
        if (done != null) {
            if (failure == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure);
            }
        }
    }

    private void received(int index, int length) {
        if (ended.get()) {
            // Closing: no handler gets it, and the buffer is not posted again.
            return;
        }
        if (length == 0) {
            repost(index);
            return;
        }
        MemorySegment bytes = buffers.receiveBuffer(index).asSlice(0, length);
        CompletableFuture<byte[]> reply = awaitingReply.poll();
        if (reply != null) {
            reply.complete(bytes.toArray(ValueLayout.JAVA_BYTE));
            repost(index);
            return;
        }
        RdmaMessageHandler h = handler;
        if (h == null) {
            logger.debug(owner + ": a message of " + length + " bytes arrived with no request waiting; dropped");
            repost(index);
            return;
        }
        dispatch.execute(() -> {
            try {
                h.onMessage(this, bytes.asByteBuffer().asReadOnlyBuffer());
            } catch (Exception e) {
                logger.warn(owner + ": the message handler failed on a message of " + length + " bytes", e);
            } finally {
                repost(index);
            }
        });
    }

    /** Posts the receive buffer again: the next message of the other side may land in it. */
    private void repost(int index) {
        if (ended.get()) {
            return;
        }
        try {
            synchronized (postLock) {
                outstanding.incrementAndGet();
                try {
                    connection.postReceive(index);
                } catch (RuntimeException e) {
                    outstanding.decrementAndGet();
                    throw e;
                }
            }
        } catch (RuntimeException e) {
            lose("reposting receive buffer " + index + " failed: " + e.getMessage());
        }
    }

    private void lose(String reason) {
        lose(reason, List.of());
    }

    private void lose(String reason, List<String> failedCompletions) {
        if (!end(reason)) {
            return;
        }
        watcher.lost(this, reason, failedCompletions);
    }

    /** Marks the session ended and fails whoever waits on it; true for the first caller only. */
    private boolean end(String reason) {
        if (!ended.compareAndSet(false, true)) {
            return false;
        }
        endReason = reason;
        RdmaSessionClosedException failure = new RdmaSessionClosedException(owner + ": " + reason, null);
        for (int slot = 0; slot < sendsInFlight.length; slot++) {
            CompletableFuture<?> done = sendsInFlight[slot];
            if (done != null) {
                done.completeExceptionally(failure);
            }
        }
        CompletableFuture<byte[]> reply;
        while ((reply = awaitingReply.poll()) != null) {
            reply.completeExceptionally(failure);
        }
        return true;
    }

    // ---- close, in the phases of the shutdown -----------------------------------------------------

    /**
     * Ends the session and releases its connection gracefully, the phases of {@link ConnectionsShutdown} for
     * this one session: {@link #disconnect}, {@link #awaitDisconnected}, {@link #flush}, {@link #release},
     * all within {@code timeout} (the flush and the wait for the handler in progress get at least one poll).
     * Idempotent.
     */
    void close(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        disconnect();
        awaitDisconnected(left(deadline));
        flush(FLUSH_GRACE.compareTo(left(deadline)) < 0 ? FLUSH_GRACE : left(deadline));
        release(left(deadline));
    }

    /**
     * The disconnect phase: ends the session for senders (each fails with {@link RdmaSessionClosedException})
     * without telling the owner of a loss, and calls {@code rdma_disconnect(3)} when the connection is up:
     * the other side sees RDMA_CM_EVENT_DISCONNECTED, this QP moves to ERR and its work requests flush.
     *
     * @return why {@code rdma_disconnect} failed; empty when it was called, or not needed (already down)
     */
    Optional<String> disconnect() {
        closing = true;
        end("closed");
        if (disconnectSentAt != 0 || connection.state() != ConnectionState.CONNECTED) {
            return Optional.empty();
        }
        disconnectSentAt = System.nanoTime();
        try {
            connection.disconnect();
            return Optional.empty();
        } catch (RuntimeException e) {
            logger.debug(owner + ": rdma_disconnect failed", e);
            return Optional.of(String.valueOf(e.getMessage()));
        }
    }

    /**
     * Waits at most {@code wait} for the connection to be down (RDMA_CM_EVENT_DISCONNECTED, or failed).
     *
     * @return how long after this side's {@code rdma_disconnect} it came (zero when this side never sent
     *         one); empty when it did not come within {@code wait}
     */
    Optional<Duration> awaitDisconnected(Duration wait) {
        if (!connection.awaitDisconnected(wait)) {
            return Optional.empty();
        }
        long sent = disconnectSentAt;
        if (sent == 0) {
            return Optional.of(Duration.ZERO);
        }
        // The state listener that stamps it runs just after the state moved: now stands in for it until then.
        long at = disconnectedAt;
        return Optional.of(Duration.ofNanos(Math.max(0, (at == 0 ? System.nanoTime() : at) - sent)));
    }

    /**
     * The flush phase: the completion thread polls what the QP's error state flushed (ibv_poll_cq(3):
     * WR_FLUSH_ERR) until every outstanding work request came back or {@code grace} is over, at least once,
     * then ends; this waits for it.
     *
     * @return the work requests flushed, over the session's life (none before a disconnect or a failure)
     */
    int flush(Duration grace) {
        closing = true;
        drainUntil = System.nanoTime() + Math.max(1, grace.toNanos());
        channel.wakeWaiters();
        try {
            // It ends within one poll step after the grace; the floor keeps a zero grace from skipping that.
            completionThread.join(grace.plus(EVENT_WAIT));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return flushed.get();
    }

    /**
     * The release phase: waits at most {@code handlerWait} for the handler in progress (it may read a
     * receive buffer), then releases the connection's resources in dependency order. Idempotent: a second
     * call releases nothing.
     *
     * @return what was released, in order, and what was left with its reason
     */
    CloseReport release(Duration handlerWait) {
        if (!released.compareAndSet(false, true)) {
            return new CloseReport(ClosePolicy.CASCADE, List.of(), List.of());
        }
        closing = true;
        end("closed");
        dispatch.shutdown();
        try {
            dispatch.awaitTermination(handlerWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        dispatch.shutdownNow();
        if (completionThread.isAlive()) {
            // A completion thread not past its flush yet (no close through flush): end it before its CQ goes.
            flush(Duration.ZERO);
        }
        try {
            return connection.close(Duration.ZERO).released();
        } finally {
            synchronized (postLock) {
                send.close();
            }
        }
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    }

    private RdmaSessionClosedException closed(@Nullable Throwable cause) {
        if (cause instanceof RdmaSessionClosedException e) {
            return e;
        }
        String reason = endReason;
        return new RdmaSessionClosedException(owner + ": " + (reason == null ? "the session is closed" : reason), cause);
    }

    /** Whether {@code e} says the other side rejected the connection (RDMA_CM_EVENT_REJECTED). */
    static boolean isRejection(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectionRejectedException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "RdmaSession " + owner + " " + RdmaPeer.format(peerAddress()) + (isOpen() ? "" : " (ended)");
    }
}
