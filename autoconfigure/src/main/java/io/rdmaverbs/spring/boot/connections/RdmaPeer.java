package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.resilience4j.retry.Retry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;

/**
 * A connection this application keeps to a listener of another host, declared under
 * {@code rdma.verbs.connections.peers.<name>}: inject it with {@code @Qualifier("<name>") RdmaPeer} and
 * {@link #send} or {@link #request} byte messages on it.
 *
 * <p>It connects on a thread of its own, never on the startup thread (unless declared {@code required}),
 * through a Resilience4j {@link Retry} with exponential backoff and its {@link AttemptGuard circuit
 * breaker}; the application starts with the peer {@link PeerState#DOWN}. Once connected it watches the
 * connection: the other side's disconnect (RDMA_CM_EVENT_DISCONNECTED), a work request that completes in
 * error or is flushed, or a failed heartbeat makes it DOWN and it reconnects. Each step is logged (INFO,
 * {@code RDMA peer '<name>' connected to <address> (attempt N)}, {@code RDMA peer '<name>' down:
 * <reason>}) and published as a {@link RdmaPeerConnectedEvent} or {@link RdmaPeerDownEvent}.
 */
public final class RdmaPeer {

    private static final Log logger = LogFactory.getLog(RdmaPeer.class.getPackageName());

    /** Makes one connection to the peer's listener, blocking, bounded by the peer's timeouts. */
    @FunctionalInterface
    interface Connector {
        RdmaSession connect(RdmaPeer peer, RdmaSession.Watcher watcher) throws Exception;
    }

    private final String name;
    private final InetSocketAddress remoteAddress;
    private final ConnectionDeclarations.Peer settings;
    private final Connector connector;
    private final Retry retry;
    private final AttemptGuard guard;
    private final ConnectionObserver observer;
    private final ApplicationEventPublisher events;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile PeerState state = PeerState.NEW;
    private volatile Instant since = Instant.now();
    private volatile @Nullable String lastError;
    /** Why the last attempt that reached the CM failed. */
    private volatile @Nullable String lastAttemptError;
    /** Attempts since the peer was last connected (or started). */
    private final AtomicInteger attempts = new AtomicInteger();
    private volatile @Nullable RdmaSession session;
    /** Completed when the current session is lost; the loop waits on it between heartbeats. */
    private volatile CompletableFuture<String> lost = new CompletableFuture<>();
    private volatile @Nullable Thread loop;
    private volatile boolean stopping;
    /** Set once the shutdown took the connection ({@link #stopConnecting}): a later one is the loop's to close. */
    private volatile boolean collected;
    /** Whether the current guarded attempt reached {@link #attempt}: only the loop thread touches it. */
    private boolean attempted;

    RdmaPeer(String name, InetSocketAddress remoteAddress, ConnectionDeclarations.Peer settings, Connector connector,
            Retry retry, AttemptGuard guard, ConnectionObserver observer, ApplicationEventPublisher events) {
        this.name = name;
        this.remoteAddress = remoteAddress;
        this.settings = settings;
        this.connector = connector;
        this.retry = retry;
        this.guard = guard;
        this.observer = observer;
        this.events = events;
    }

    /** Its key under {@code rdma.verbs.connections.peers}. */
    public String name() {
        return name;
    }

    /** The remote listener's address and port. */
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    public PeerState state() {
        return state;
    }

    /** When the peer entered its current state. */
    public Instant since() {
        return since;
    }

    /** Why the last attempt failed or the last connection was lost; empty once connected. */
    public @Nullable String lastError() {
        return lastError;
    }

    /** Connect attempts since the peer was last connected; the attempt that connected it while CONNECTED. */
    public int attempts() {
        return attempts.get();
    }

    /** Its circuit breaker's state (CLOSED, OPEN, HALF_OPEN...), empty without resilience4j-circuitbreaker. */
    public Optional<String> circuitBreakerState() {
        return guard.state();
    }

    ConnectionDeclarations.Peer declaration() {
        return settings;
    }

    /** Whether it is declared {@code required}. */
    public boolean isRequired() {
        return settings.required();
    }

    /** The current connection, empty while not connected. */
    public Optional<RdmaSession> session() {
        return Optional.ofNullable(session);
    }

    /**
     * Waits until the peer is connected.
     *
     * @return whether it is connected; {@code false} after the timeout or once it stopped
     */
    public boolean awaitConnected(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (state != PeerState.CONNECTED && state != PeerState.STOPPED) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(left);
            }
            return state == PeerState.CONNECTED;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends one message on the connection: copied into a registered send buffer and posted; returns once
     * the send completed.
     *
     * @throws RdmaPeerUnavailableException when the peer is not connected
     */
    public void send(byte[] message) {
        connected().send(message);
    }

    /**
     * Sends one message and waits for the next message the other side sends back: a request and its
     * reply. Requests on one peer are answered in order.
     *
     * @return the reply, a copy
     * @throws RdmaPeerUnavailableException when the peer is not connected, or goes down before the reply
     * @throws TimeoutException when no reply came within {@code timeout}
     */
    public byte[] request(byte[] message, Duration timeout) throws TimeoutException, InterruptedException {
        RdmaSession current = connected();
        try {
            return current.request(message, timeout);
        } catch (RdmaSessionClosedException e) {
            throw unavailable(e);
        }
    }

    private RdmaSession connected() {
        RdmaSession current = session;
        if (current == null || state != PeerState.CONNECTED) {
            throw unavailable(null);
        }
        return current;
    }

    private RdmaPeerUnavailableException unavailable(@Nullable Throwable cause) {
        return new RdmaPeerUnavailableException(name, state, lastError, cause);
    }

    /** Starts the connect loop on a thread of its own. */
    void start() {
        lock.lock();
        try {
            if (loop != null) {
                return;
            }
            stopping = false;
            collected = false;
            transition(PeerState.CONNECTING);
            loop = Thread.ofPlatform().daemon().name("rdma-peer-" + name).start(this::run);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The shutdown's second phase, for this peer: stops the connect loop (waking it from a backoff, a wait
     * or an attempt in progress, whose connection is closed should it still come) and waits at most until
     * {@code deadline} (System.nanoTime()) for the loop to end. The peer is then STOPPED; its connection,
     * if any, is handed to the shutdown, which disconnects and releases it. Without one, this logs that the
     * peer stopped connecting.
     */
    Optional<RdmaSession> stopConnecting(long deadline) {
        PeerState was = state;
        Thread thread;
        lock.lock();
        try {
            stopping = true;
            thread = loop;
            loop = null;
        } finally {
            lock.unlock();
        }
        boolean loopEnded = true;
        if (thread != null) {
            thread.interrupt();
            try {
                loopEnded = thread.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                loopEnded = false;
            }
        }
        RdmaSession current;
        lock.lock();
        try {
            // From here on, a connection the loop still makes is the loop's to close (it outlived the join).
            collected = true;
            current = session;
            session = null;
        } finally {
            lock.unlock();
        }
        transition(PeerState.STOPPED);
        if (current == null) {
            String error = lastError;
            logger.info("RDMA peer '" + name + "' stopped connecting to " + format(remoteAddress) + ": not connected ("
                    + was + ", " + attempts.get() + " attempt(s)" + (error == null ? "" : ", last error: " + error) + ")"
                    + (loopEnded ? "" : "; its connect loop did not end in time, an attempt that still connects is "
                            + "closed"));
        }
        return Optional.ofNullable(current);
    }

    private void run() {
        while (!stopping) {
            RdmaSession connected;
            try {
                connected = retry.executeCheckedSupplier(this::guardedAttempt);
            } catch (Throwable e) {
                if (!stopping) {
                    lastError = describe(e);
                    logger.warn("RDMA peer '" + name + "' gave up after " + attempts.get() + " attempt(s): "
                            + lastError);
                    transition(PeerState.STOPPED);
                }
                return;
            }
            if (stopping) {
                closeIfLeft(connected);
                return;
            }
            if (!watch(connected)) {
                return;
            }
        }
    }

    /** An attempt through the circuit breaker, which may refuse it without reaching the CM. */
    private RdmaSession guardedAttempt() throws Exception {
        try {
            return guard.call(this::attempt);
        } catch (Exception e) {
            if (!attempted) {
                String last = lastAttemptError;
                lastError = describe(e) + (last == null ? "" : "; last attempt: " + last);
                transition(PeerState.DOWN);
            }
            throw e;
        } finally {
            attempted = false;
        }
    }

    /** One attempt: resolve, route, connect. A failure is DOWN until the retry's next attempt. */
    private RdmaSession attempt() throws Exception {
        if (stopping) {
            throw new InterruptedException("stopping");
        }
        attempted = true;
        int n = attempts.incrementAndGet();
        if (n > 1) {
            observer.reconnectAttempt(name);
        }
        transition(PeerState.CONNECTING);
        long started = System.nanoTime();
        CompletableFuture<String> loss = new CompletableFuture<>();
        try {
            RdmaSession connected = connector.connect(this,
                    (s, reason, failed) -> lostSession(loss, s, reason, failed));
            Duration setup = Duration.ofNanos(System.nanoTime() - started);
            lost = loss;
            session = connected;
            lastError = null;
            observer.established("peer", name, setup);
            transition(PeerState.CONNECTED);
            logger.info("RDMA peer '" + name + "' connected to " + format(connected.peerAddress()) + " (attempt " + n
                    + ")");
            events.publishEvent(new RdmaPeerConnectedEvent(this, remoteAddress, n, setup, connected));
            return connected;
        } catch (Exception e) {
            lastError = describe(e);
            lastAttemptError = lastError;
            if (RdmaSession.isRejection(e)) {
                observer.rejected("peer", name);
            }
            if (!stopping) {
                transition(PeerState.DOWN);
                logger.debug("RDMA peer '" + name + "' attempt " + n + " failed: " + lastError);
            }
            throw e;
        }
    }

    /**
     * Sends a heartbeat every interval while connected, until the connection is lost.
     *
     * @return whether to reconnect (false once stopping)
     */
    private boolean watch(RdmaSession connected) {
        Duration interval = settings.heartbeatInterval();
        CompletableFuture<String> loss = lost;
        while (!stopping) {
            try {
                if (interval.isZero()) {
                    loss.get();
                } else {
                    loss.get(interval.toNanos(), TimeUnit.NANOSECONDS);
                }
                break;
            } catch (TimeoutException idle) {
                connected.heartbeat();
            } catch (InterruptedException e) {
                return false;
            } catch (ExecutionException e) {
                break;
            }
        }
        if (stopping) {
            closeIfLeft(connected);
            return false;
        }
        if (!take(connected)) {
            return false;
        }
        attempts.set(0);
        // Lost with its port (a link cut): released once the port is back, which no new attempt can
        // beat anyway (PortWait).
        PortWait.untilActive("RDMA peer '" + name + "' connection to " + format(remoteAddress), connected,
                () -> stopping);
        connected.close(Duration.ZERO);
        return true;
    }

    /**
     * The loop ends while stopping with {@code s} made: the shutdown collects it once the loop ended, unless
     * it stopped waiting for the loop already; then it is the loop's to close.
     */
    private void closeIfLeft(RdmaSession s) {
        if (collected && take(s)) {
            s.close(Duration.ZERO);
        }
    }

    /** Takes {@code s} from {@link #session}: true for one caller only, the one that closes it. */
    private boolean take(RdmaSession s) {
        lock.lock();
        try {
            if (session != s) {
                return false;
            }
            session = null;
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void lostSession(CompletableFuture<String> loss, RdmaSession lostOne, String reason,
            List<String> failedCompletions) {
        if (stopping || !loss.complete(reason)) {
            return;
        }
        lastError = reason;
        observer.disconnected("peer", name);
        transition(PeerState.DOWN);
        logger.info("RDMA peer '" + name + "' down: " + reason + (failedCompletions.isEmpty() ? ""
                : " (failed work completions: " + String.join(", ", failedCompletions) + ")"));
        events.publishEvent(new RdmaPeerDownEvent(this, remoteAddress, lostOne, reason, failedCompletions));
    }

    private void transition(PeerState next) {
        lock.lock();
        try {
            if (state == PeerState.STOPPED && next != PeerState.STOPPED) {
                return;
            }
            if (state != next) {
                state = next;
                since = Instant.now();
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    static String format(@Nullable InetSocketAddress address) {
        if (address == null) {
            return "?";
        }
        String host = address.getAddress() == null ? address.getHostString() : address.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    private static String describe(Throwable e) {
        Throwable t = e;
        while ((t instanceof ExecutionException || t instanceof CompletionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    @Override
    public String toString() {
        return "RdmaPeer '" + name + "' -> " + format(remoteAddress) + " " + state;
    }
}
