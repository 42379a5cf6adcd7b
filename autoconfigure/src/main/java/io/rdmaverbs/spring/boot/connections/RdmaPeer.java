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
import io.rdmaverbs.spring.boot.resilience.AttemptGuard;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionRejectedException;
import io.rdmaverbs.verbs.connection.Futures;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.PortWait;
import io.rdmaverbs.verbs.connection.RemoteErrorException;
import io.rdmaverbs.verbs.connection.RemoteKey;
import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.SessionEnd;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;

/**
 * A connection this application keeps to a listener of another host, declared under
 * {@code rdma.verbs.connections.peers.<name>}: inject it with {@code @Qualifier("<name>") RdmaPeer} and
 * {@link #send} messages or {@link #request} replies on it, blocking or asynchronously, over its current
 * {@link Session}.
 *
 * <p>It connects on a thread of its own, never on the startup thread (unless declared {@code required}),
 * through a Resilience4j {@link Retry} with exponential backoff and its {@link AttemptGuard circuit
 * breaker}; the application starts with the peer {@link PeerState#DOWN}. Once connected it watches the
 * session: the other side's disconnect (RDMA_CM_EVENT_DISCONNECTED), a work request that completes in
 * error (a KEEPALIVE after {@code heartbeat-interval} of silence finds a dead link) makes it DOWN and it
 * reconnects. Each step is logged (INFO, {@code RDMA peer '<name>' connected to <address> (attempt N)},
 * {@code RDMA peer '<name>' down: <reason>}) and published as a {@link RdmaPeerConnectedEvent} or
 * {@link RdmaPeerDownEvent}.
 */
public final class RdmaPeer {

    private static final Log logger = LogFactory.getLog(RdmaPeer.class.getPackageName());

    /** Makes one connection to the peer's listener, blocking, bounded by the peer's timeouts. */
    @FunctionalInterface
    interface Connector {
        Session connect(RdmaPeer peer) throws Exception;
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
    private volatile @Nullable Session session;
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

    /** How long a request waits for its reply unless the call says: its {@code request-timeout}. */
    public Duration requestTimeout() {
        return settings.requestTimeout();
    }

    /** Whether it is declared {@code required}. */
    public boolean isRequired() {
        return settings.required();
    }

    /** The current session, empty while not connected. */
    public Optional<Session> session() {
        return Optional.ofNullable(session);
    }

    /**
     * The current session, for what it offers beyond messages: memory registered on its connection and
     * exported to the other side ({@code Session.export}), statistics.
     *
     * @throws RdmaPeerUnavailableException while the peer is not connected
     */
    public Session connectedSession() {
        return connected();
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
     * Sends one message and waits until it is sent (the payload may be reused then).
     *
     * @throws RdmaPeerUnavailableException when the peer is not connected, or goes down before the send
     */
    public void send(byte[] message) {
        await(sendAsync(Message.of(message)), settings.requestTimeout());
    }

    /**
     * Sends one message; the future completes once it is sent, and fails with
     * {@link RdmaPeerUnavailableException} when the peer is not connected or goes down first.
     */
    public CompletableFuture<Void> sendAsync(Message message) {
        Session current = connected();
        try {
            return current.send(message).exceptionallyCompose(e -> CompletableFuture.failedFuture(translate(e)));
        } catch (ResourceClosedException e) {
            throw unavailable(e);
        }
    }

    /**
     * Sends a request and waits for its reply (matched by correlation id: requests may be in flight from
     * many threads at once).
     *
     * @return the reply's payload, a copy
     * @throws RdmaPeerUnavailableException when the peer is not connected, or goes down before the reply
     * @throws TimeoutException when no reply came within {@code timeout}
     * @throws RemoteErrorException when the other side answered with an error
     */
    public byte[] request(byte[] message, Duration timeout) throws TimeoutException, InterruptedException {
        return await(requestAsync(Message.of(message), timeout), timeout.plusSeconds(1)).toByteArray();
    }

    /** {@link #requestAsync(Message, Duration)} with the peer's {@code request-timeout}. */
    public CompletableFuture<Message> requestAsync(Message message) {
        return requestAsync(message, settings.requestTimeout());
    }

    /**
     * Sends a request; the future completes with the reply, or fails with {@link TimeoutException},
     * {@link RemoteErrorException} or {@link RdmaPeerUnavailableException}.
     */
    public CompletableFuture<Message> requestAsync(Message message, Duration timeout) {
        Session current = connected();
        try {
            return current.request(message, timeout)
                    .exceptionallyCompose(e -> CompletableFuture.failedFuture(translate(e)));
        } catch (ResourceClosedException e) {
            throw unavailable(e);
        }
    }

    /**
     * Opens a key the other side exported on the current session ({@code Session.export}, its bytes sent
     * in a reply): a handle for RDMA READ, WRITE and atomics on that memory. The handle belongs to that
     * session: when the connection is lost it is closed (every call then throws
     * {@link ResourceClosedException}), and after the reconnect a new key must be asked for, since a key is
     * valid on the connection it was exported on only.
     *
     * @throws RdmaPeerUnavailableException when the peer is not connected
     * @throws IllegalArgumentException for a key of another session (one from before a reconnect), of this
     *     side, or one the other side revoked
     */
    public RemoteRegion remoteRegion(RemoteKey key) {
        Session current = connected();
        try {
            return current.remoteRegion(key);
        } catch (ResourceClosedException e) {
            throw unavailable(e);
        }
    }

    private Session connected() {
        Session current = session;
        if (current == null || state != PeerState.CONNECTED) {
            throw unavailable(null);
        }
        return current;
    }

    private RdmaPeerUnavailableException unavailable(@Nullable Throwable cause) {
        return new RdmaPeerUnavailableException(name, state, lastError, cause);
    }

    /** A session's end while a call waited is the peer's unavailability; anything else stands. */
    private Throwable translate(Throwable e) {
        Throwable cause = Futures.cause(e);
        return cause instanceof ResourceClosedException closed ? unavailable(closed) : cause;
    }

    private static <T> T await(CompletableFuture<T> f, Duration bound) {
        try {
            return f.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
        } catch (TimeoutException e) {
            f.cancel(false);
            throw sneaky(e);
        } catch (ExecutionException e) {
            throw sneaky(e.getCause());
        }
    }

    /** Rethrows {@code t} as it is: a request's TimeoutException is declared by {@link #request}. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
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
    Optional<Connection> stopConnecting(long deadline) {
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
        Session current;
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
        return Optional.ofNullable(current).map(Session::connection);
    }

    private void run() {
        while (!stopping) {
            Session connected;
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
    private Session guardedAttempt() throws Exception {
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
    private Session attempt() throws Exception {
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
        try {
            Session connected = connector.connect(this);
            Duration setup = Duration.ofNanos(System.nanoTime() - started);
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
            if (isRejection(e)) {
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
     * Waits while connected until the session ends (the session's KEEPALIVE finds a dead link on an idle
     * connection).
     *
     * @return whether to reconnect (false once stopping)
     */
    private boolean watch(Session connected) {
        SessionEnd end;
        try {
            end = connected.closeFuture().get();
        } catch (InterruptedException e) {
            return false;
        } catch (ExecutionException e) {
            end = new SessionEnd(String.valueOf(e.getCause()), false, false, List.of());
        }
        if (stopping) {
            closeIfLeft(connected);
            return false;
        }
        if (!take(connected)) {
            return false;
        }
        down(connected, end);
        attempts.set(0);
        // Lost with its port (a link cut): released once the port is back, which no new attempt can beat
        // anyway (PortWait: its DREQ could reach nobody before).
        PortWait.untilActive(connected.connection(), PortWait.BOUND, () -> stopping).ifPresent(held -> logger
                .info("RDMA peer '" + name + "' connection to " + format(remoteAddress) + " ended while " + held));
        connected.connection().close(Duration.ZERO);
        return true;
    }

    /**
     * The loop ends while stopping with {@code s} made: the shutdown collects it once the loop ended, unless
     * it stopped waiting for the loop already; then it is the loop's to close.
     */
    private void closeIfLeft(Session s) {
        if (collected && take(s)) {
            s.connection().close(Duration.ZERO);
        }
    }

    /** Takes {@code s} from {@link #session}: true for one caller only, the one that closes it. */
    private boolean take(Session s) {
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

    /** The session ended by itself: DOWN, logged and published, before the reconnect. */
    private void down(Session lost, SessionEnd end) {
        lastError = end.reason();
        observer.disconnected("peer", name);
        transition(PeerState.DOWN);
        logger.info("RDMA peer '" + name + "' down: " + end.reason() + (end.failedCompletions().isEmpty() ? ""
                : " (failed work completions: " + String.join(", ", end.failedCompletions()) + ")"));
        events.publishEvent(new RdmaPeerDownEvent(this, remoteAddress, lost, end));
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

    /** {@code [fe80:0:0:0:0:0:0:1]:7471} or {@code 127.0.0.1:7471}, as every log line and health entry writes it. */
    public static String format(@Nullable InetSocketAddress address) {
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
