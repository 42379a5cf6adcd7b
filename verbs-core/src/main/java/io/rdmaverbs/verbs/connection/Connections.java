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
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.Map;
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
    private final ScheduledThreadPoolExecutor timers = newTimers();
    private final CompletionLoops completionLoops;
    private final List<RuntimeException> closeFailures = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile @org.jspecify.annotations.Nullable ShutdownReport report;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Set<ConnectionListener> listeners = ConcurrentHashMap.newKeySet();
    private final Set<ActiveConnect> connecting = ConcurrentHashMap.newKeySet();
    private final AtomicLong names = new AtomicLong();
    private final String prefix;
    private volatile boolean closed;

    private Connections(Verbs verbs, String name, int completionThreads) {
        this.verbs = verbs;
        this.prefix = name;
        this.completionLoops = new CompletionLoops(name, completionThreads);
        this.channel = verbs.createCmEventChannel(name + "/events");
        this.loop = new EventLoop(channel);
        loop.start();
    }

    /** The completion threads a manager starts with, per device context: {@value #DEFAULT_COMPLETION_THREADS}. */
    public static final int DEFAULT_COMPLETION_THREADS = 2;

    /** A connection manager on {@code verbs}, with a new event channel and its event loop. */
    public static Connections on(Verbs verbs) {
        return on(verbs, "cm");
    }

    /** {@link #on(Verbs)}, naming its channel and connections after {@code name} in reports. */
    public static Connections on(Verbs verbs, String name) {
        return on(verbs, name, DEFAULT_COMPLETION_THREADS);
    }

    /**
     * {@link #on(Verbs, String)}, with at most {@code completionThreads} completion loops per device context:
     * every session's CQ is served by one of them (each a platform thread and a completion channel), never by
     * a thread of its own.
     */
    public static Connections on(Verbs verbs, String name, int completionThreads) {
        return new Connections(Objects.requireNonNull(verbs, "verbs"), Objects.requireNonNull(name, "name"),
                completionThreads);
    }

    private static ScheduledThreadPoolExecutor newTimers() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("rdma-cm-timers").factory());
        // A request's timeout is cancelled by its reply: gone at once, not at its deadline.
        t.setRemoveOnCancelPolicy(true);
        return t;
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
            throw Futures.rethrow(e, checked -> e);
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
     * {@link #close(Duration)} within the event channel's {@linkplain CmEventChannel#disconnectTimeout()
     * disconnect timeout}. Idempotent.
     *
     * @throws RuntimeException the first failure of the stop (a connection's release refused, a channel's
     *         close), the others suppressed
     */
    @Override
    public void close() {
        ShutdownReport report = close(channel.disconnectTimeout());
        List<RuntimeException> failures = new ArrayList<>(closeFailures);
        for (ConnectionCloseReport c : report.connections()) {
            c.released().left().forEach(l -> failures.add(l.failure()));
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.getFirst();
            failures.stream().skip(1).forEach(first::addSuppressed);
            throw first;
        }
    }

    /**
     * Stops everything in dependency order, in phases, all within {@code timeout}:
     * <ol>
     * <li>every listener stops listening ({@code rdma_destroy_id(3)} of its id; pending requests are rejected),
     *     so nothing new is accepted while the rest goes;</li>
     * <li>connects in progress are aborted (what they made is released);</li>
     * <li>every connection's session ends and the connection gets {@code rdma_disconnect(3)}, all of them
     *     before one wait for all their DISCONNECTED until the deadline (the peers see theirs);</li>
     * <li>the completion loops poll what the QPs' error state flushed, until every work request came back or
     *     the deadline;</li>
     * <li>each connection is released, its QP before its id, the id before what it was made on;</li>
     * <li>the event loop, the handlers (2 s at most), the completion loops and their channels go, and last the
     *     event channel ({@code rdma_destroy_event_channel(3)} needs every id of it destroyed first).</li>
     * </ol>
     * One deadline, not one per connection: many connections to a host that never answers still stop in
     * time. A second call returns the first call's report.
     */
    public synchronized ShutdownReport close(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        ShutdownReport done = report;
        if (done != null) {
            return done;
        }
        closed = true;
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        List<String> failures = new ArrayList<>();
        List<ShutdownReport.ListenerStop> stopped = new ArrayList<>();
        for (ConnectionListener l : listeners()) {
            int pending = l.pendingRequests().size();
            java.net.InetSocketAddress at = listenedAddress(l);
            attempt(failures, () -> l.close(ClosePolicy.CASCADE));
            stopped.add(new ShutdownReport.ListenerStop(l.cmId().name(), at, pending));
        }
        List<ActiveConnect> inFlight = List.copyOf(connecting);
        inFlight.forEach(ActiveConnect::abort);
        for (ActiveConnect a : inFlight) {
            try {
                a.result().get(Math.max(1, Math.min(SHUTDOWN_BOUND.toNanos(), deadline - System.nanoTime())),
                        TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException expected) {
                // Aborted (or failed on its own): what it made is released.
            }
        }
        List<Connection> open = connections();
        Map<Connection, ConnectionCloseReport.Disconnect> how = new java.util.LinkedHashMap<>();
        for (Connection c : open) {
            how.put(c, c.disconnectForClose());
        }
        Map<Connection, java.time.Duration> after = new java.util.HashMap<>();
        for (Connection c : open) {
            after.put(c, c.awaitDown(how.get(c), deadline));
        }
        Map<Connection, Boolean> flushed = new java.util.HashMap<>();
        for (Connection c : open) {
            flushed.put(c, c.awaitFlushed(deadline));
        }
        List<ConnectionCloseReport> released = new ArrayList<>();
        for (Connection c : open) {
            try {
                released.add(c.release(how.get(c), after.get(c), flushed.get(c)));
            } catch (RuntimeException e) {
                failures.add("releasing " + c.name() + " failed: " + e);
                closeFailures.add(e);
            }
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
        List<io.rdmaverbs.verbs.ResourceRef> channels = new ArrayList<>();
        for (RuntimeException e : completionLoops.close(SHUTDOWN_BOUND, channels)) {
            failures.add(e.getMessage());
            closeFailures.add(e);
        }
        timers.shutdownNow();
        io.rdmaverbs.verbs.ResourceRef events = channel.ref();
        attempt(failures, () -> {
            channel.close(ClosePolicy.CASCADE);
            channels.add(events);
        });
        ShutdownReport r = new ShutdownReport(prefix, java.time.Duration.ofNanos(System.nanoTime() - started), stopped,
                inFlight.size(), released, channels, failures);
        report = r;
        return r;
    }

    private static java.net.@org.jspecify.annotations.Nullable InetSocketAddress listenedAddress(ConnectionListener l) {
        try {
            return l.cmId().isOpen() ? l.address() : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private void attempt(List<String> failures, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            failures.add(String.valueOf(e.getMessage()));
            closeFailures.add(e);
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

    CompletionLoops completionLoops() {
        return completionLoops;
    }

    /** Virtual threads for what must not run on a loop thread (registering a large message's region). */
    java.util.concurrent.Executor workers() {
        return handlers;
    }

    ScheduledExecutorService timers() {
        return timers;
    }

    boolean isLoopThread() {
        return loop.isLoopThread();
    }

    /** Whether {@link #close(Duration)} began: it releases every connection itself. */
    boolean isClosing() {
        return closed;
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
