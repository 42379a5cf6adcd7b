package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CmEventChannel;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.CmPortSpace;

/**
 * The connection manager of one resource graph: one {@link CmEventChannel} and the event loop that reads
 * it, the {@link ConnectionListener listeners} and {@link Connection connections} made through it.
 *
 * <pre>{@code
 * Connections cm = Connections.on(verbs);
 * ConnectionListener l = cm.listen(ListenSpec.on(address).backlog(16), request -> request.accept());
 * Connection c = cm.connect(ConnectSpec.to(l.address()).privateData(hello));
 * }</pre>
 *
 * <p>Events are read on one thread, acknowledged at once, and handed to their id's owner; handlers and
 * state callbacks run on a pool, serially per connection, so a slow handler never holds up another
 * connection's events. {@link #close()} closes listeners (rejecting pending requests) and connections
 * gracefully, stops the loop, waits a bounded time for running handlers, then closes the channel.
 */
public final class Connections implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Connections.class.getName());
    /** How long a close waits for the loop and the running handlers before it goes on without them. */
    private static final Duration SHUTDOWN_BOUND = Duration.ofSeconds(2);

    private final Verbs verbs;
    private final CmEventChannel channel;
    private final EventLoop loop;
    private final ExecutorService handlers = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("rdma-cm-handler-", 0).factory());
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("rdma-cm-timers").factory());
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Set<ConnectionListener> listeners = ConcurrentHashMap.newKeySet();
    private final Set<ActiveConnect> connecting = ConcurrentHashMap.newKeySet();
    private final AtomicLong names = new AtomicLong();
    private final String prefix;
    private volatile boolean closed;

    private Connections(Verbs verbs, String name) {
        this.verbs = verbs;
        this.prefix = name;
        this.channel = verbs.createCmEventChannel(name + "/events");
        this.loop = new EventLoop(channel);
        loop.start();
    }

    /** A connection manager on {@code verbs}, with a new event channel and its event loop. */
    public static Connections on(Verbs verbs) {
        return new Connections(Objects.requireNonNull(verbs, "verbs"), "cm");
    }

    /** {@link #on(Verbs)}, naming its channel and connections after {@code name} in reports. */
    public static Connections on(Verbs verbs, String name) {
        return new Connections(Objects.requireNonNull(verbs, "verbs"), Objects.requireNonNull(name, "name"));
    }

    public Verbs verbs() {
        return verbs;
    }

    /** The event channel every id of this manager reports on. */
    public CmEventChannel channel() {
        return channel;
    }

    /** The live connections. */
    public List<Connection> connections() {
        return List.copyOf(connections);
    }

    /** The open listeners. */
    public List<ConnectionListener> listeners() {
        return List.copyOf(listeners);
    }

    // ---- listening --------------------------------------------------------------------------------

    /**
     * Binds and listens ({@code rdma_bind_addr(3)}, {@code rdma_listen(3)}); each request goes to
     * {@code handler}. A port in use fails with {@code EADDRINUSE}, leaving nothing behind.
     */
    public ConnectionListener listen(ListenSpec spec, ConnectionHandler handler) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(handler, "handler");
        requireOpen();
        CmId id = channel.createId(CmPortSpace.TCP, prefix + "/listener-" + names.incrementAndGet());
        ConnectionListener listener = new ConnectionListener(this, id, spec, handler);
        loop.register(id, listener::eventArrived);
        try {
            id.bind(spec.address());
            id.listen(spec.backlog());
        } catch (RuntimeException e) {
            loop.unregister(id);
            id.close(ClosePolicy.CASCADE);
            throw e;
        }
        listeners.add(listener);
        return listener;
    }

    // ---- connecting -------------------------------------------------------------------------------

    /**
     * Connects and waits for ESTABLISHED. Failures are {@link VerbsException}s naming the verb, the id and
     * the errno or CM event: {@link ConnectionRejectedException} (REJECTED, with the reason and the peer's
     * private data), UNREACHABLE, ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, ETIMEDOUT. A failed connect
     * leaves nothing allocated.
     */
    public Connection connect(ConnectSpec spec) {
        try {
            return connectAsync(spec).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                failure.addSuppressed(new Exception("waited for here"));
                throw failure;
            }
            throw e;
        }
    }

    /** {@link #connect(ConnectSpec)} without blocking: the future completes on ESTABLISHED, or fails. */
    public CompletableFuture<Connection> connectAsync(ConnectSpec spec) {
        Objects.requireNonNull(spec, "spec");
        requireOpen();
        ActiveConnect attempt = new ActiveConnect(this, channel, spec, nextName(), newLane(), timers);
        connecting.add(attempt);
        return attempt.start();
    }

    void connectEnded(ActiveConnect attempt) {
        connecting.remove(attempt);
    }

    // ---- close ------------------------------------------------------------------------------------

    /**
     * Closes the listeners (rejecting pending requests) and the connections gracefully (each disconnects,
     * waits for DISCONNECTED up to the channel's disconnect timeout, releases its resources), stops the
     * event loop, waits up to 2 s for running handlers, then closes the channel. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<RuntimeException> failures = new ArrayList<>();
        for (ConnectionListener l : listeners()) {
            attempt(failures, () -> l.close(ClosePolicy.CASCADE));
        }
        List<ActiveConnect> inFlight = List.copyOf(connecting);
        inFlight.forEach(ActiveConnect::abort);
        for (ActiveConnect a : inFlight) {
            try {
                a.result().get(SHUTDOWN_BOUND.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException expected) {
                // Aborted (or failed on its own): what it made is released.
            }
        }
        List<Connection> open = connections();
        for (Connection c : open) {
            attempt(failures, () -> {
                if (c.cmId().isOpen() && c.state() == ConnectionState.CONNECTED) {
                    c.disconnect();
                }
            });
        }
        for (Connection c : open) {
            attempt(failures, c::close);
        }
        loop.stop(SHUTDOWN_BOUND);
        handlers.shutdown();
        try {
            if (!handlers.awaitTermination(SHUTDOWN_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(Level.WARNING, () -> "connection handlers still running after " + SHUTDOWN_BOUND
                        + "; closing " + channel + " without them");
                handlers.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        timers.shutdownNow();
        attempt(failures, () -> channel.close(ClosePolicy.CASCADE));
        if (!failures.isEmpty()) {
            RuntimeException first = failures.getFirst();
            failures.stream().skip(1).forEach(first::addSuppressed);
            throw first;
        }
    }

    private static void attempt(List<RuntimeException> failures, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("this connection manager on " + channel + " is closed");
        }
    }

    // ---- wiring for the package -------------------------------------------------------------------

    String nextName() {
        return prefix + "/conn-" + names.incrementAndGet();
    }

    Lane newLane() {
        return new Lane(handlers);
    }

    boolean isLoopThread() {
        return loop.isLoopThread();
    }

    void track(CmId id, EventLoop.Sink sink) {
        loop.register(id, sink);
    }

    void untrack(CmId id) {
        loop.unregister(id);
    }

    /** A connection is made (established, or accepted): {@link #close()} closes it. */
    void adopt(Connection c) {
        connections.add(c);
    }

    /** A connection closed itself: its id is no longer routed. */
    void forget(Connection c) {
        connections.remove(c);
        loop.unregister(c.cmId());
    }

    void forget(ConnectionListener l) {
        listeners.remove(l);
        loop.unregister(l.cmId());
    }

    /** An id that ends without a connection (a rejected request): unrouted and released. */
    void release(CmId id) {
        loop.unregister(id);
        try {
            id.close(ClosePolicy.CASCADE);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> "releasing " + id + " failed", e);
        }
    }
}
