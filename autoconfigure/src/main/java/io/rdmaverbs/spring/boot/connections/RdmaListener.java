package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionListener;
import io.rdmaverbs.verbs.connection.ConnectionRequest;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.ListenSpec;
import io.rdmaverbs.verbs.connection.MessageHandler;
import io.rdmaverbs.verbs.connection.PortWait;
import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.SessionEnd;
import io.rdmaverbs.verbs.connection.SessionSpec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;

/**
 * A listening CM id declared under {@code rdma.verbs.connections.listeners.<name>}: it accepts every
 * connection request and hands the messages of each accepted connection's {@link Session} to its handler:
 * the {@link RdmaMessageHandler} bean its {@code handler} property names, else the annotated endpoints
 * bound to it ({@link ListenerHandlers}), else the application's only {@code RdmaMessageHandler}, resolved
 * when it starts. Unless declared {@code ordered}, messages are handled on virtual threads, at most
 * {@code concurrency} at once ({@link HandlerExecutors}). Each accept is logged (INFO, {@code RDMA listener '<name>'
 * accepted <address>}) and published as a {@link RdmaConnectionAcceptedEvent}; a session that ends by
 * itself (the other side disconnected, a work request failed) is logged and its connection released.
 */
public final class RdmaListener {

    private static final Log logger = LogFactory.getLog(RdmaListener.class.getPackageName());
    /** How long the release of a connection that ended by itself may wait for its flush. */
    private static final Duration RELEASE_BOUND = Duration.ofSeconds(2);

    private final String name;
    private final InetSocketAddress bindAddress;
    private final ConnectionDeclarations.Listener settings;
    private final Connections connections;
    /** Resolved when the listener starts: the endpoints that serve it are known only once every bean exists. */
    private final Supplier<MessageHandler> handler;
    private final ConnectionObserver observer;
    private final ApplicationEventPublisher events;
    private final Map<Connection, Session> sessions = new ConcurrentHashMap<>();
    private volatile @Nullable ConnectionListener listening;
    private volatile boolean stopping;

    RdmaListener(String name, InetSocketAddress bindAddress, ConnectionDeclarations.Listener settings,
            Connections connections, Supplier<MessageHandler> handler, ConnectionObserver observer,
            ApplicationEventPublisher events) {
        this.name = name;
        this.bindAddress = bindAddress;
        this.settings = settings;
        this.connections = connections;
        this.handler = handler;
        this.observer = observer;
        this.events = events;
    }

    /** Its key under {@code rdma.verbs.connections.listeners}. */
    public String name() {
        return name;
    }

    /** The address and port it listens on (the port picked, when 0 was declared), once started. */
    public InetSocketAddress address() {
        ConnectionListener l = listening;
        InetSocketAddress bound = l == null ? null : l.address();
        return bound == null ? bindAddress : bound;
    }

    /** Whether it is listening. */
    public boolean isListening() {
        return listening != null;
    }

    /** The sessions of the connections it accepted that are still open. */
    public List<Session> sessions() {
        return List.copyOf(sessions.values());
    }

    /** Whether {@code connection} is one this listener accepted (the shutdown's lines name it after the listener). */
    boolean accepted(Connection connection) {
        return sessions.containsKey(connection);
    }

    /** {@code rdma_bind_addr} and {@code rdma_listen}: fails at once (EADDRINUSE, EADDRNOTAVAIL...). */
    void start() {
        if (listening != null) {
            return;
        }
        stopping = false;
        ConnectionDeclarations.PerConnection connection = settings.connection();
        SessionSpec session = ConnectionSpecs.session(connection, handler.get(), settings.heartbeatInterval(),
                SessionSpec.DEFAULT_REQUEST_TIMEOUT);
        Executor executor = HandlerExecutors.of(name, settings);
        ListenSpec spec = ListenSpec.on(bindAddress).backlog(settings.backlog())
                .connection(ConnectionSpecs.of(connection))
                .session(executor == null ? session : session.handlerExecutor(executor));
        listening = connections.listen(spec, this::onRequest);
        logger.info("RDMA listener '" + name + "' listening on " + RdmaPeer.format(address()));
    }

    private void onRequest(ConnectionRequest request) {
        if (stopping) {
            request.reject(new byte[0]);
            observer.rejected("listener", name);
            return;
        }
        long started = System.nanoTime();
        Connection connection = request.accept();
        Session session = connection.session();
        sessions.put(connection, session);
        InetSocketAddress from = request.peerAddress();
        session.closeFuture().thenAccept(end -> ended(connection, session, from, end));
        observer.established("listener", name, Duration.ofNanos(System.nanoTime() - started));
        logger.info("RDMA listener '" + name + "' accepted " + RdmaPeer.format(request.peerAddress()));
        events.publishEvent(new RdmaConnectionAcceptedEvent(this, request.peerAddress(), session));
    }

    /**
     * The session ended (on a loop thread): logged and published, and the connection released off that thread;
     * lost with its port (a link cut), once the port is back ({@link PortWait}: its DREQ could reach nobody before).
     */
    private void ended(Connection connection, Session session, InetSocketAddress from, SessionEnd end) {
        if (stopping || end.local() || sessions.remove(connection) == null) {
            // The shutdown (or whoever closed it here) releases it and reports it.
            return;
        }
        observer.disconnected("listener", name);
        String it = "RDMA listener '" + name + "' connection from " + RdmaPeer.format(from);
        logger.info(it + " ended: " + end.reason() + (end.failedCompletions().isEmpty() ? ""
                : " (failed work completions: " + String.join(", ", end.failedCompletions()) + ")"));
        events.publishEvent(new RdmaConnectionEndedEvent(this, from, session, end));
        Thread.ofVirtual().name("rdma-release-" + name).start(() -> {
            PortWait.untilActive(connection, PortWait.BOUND, () -> stopping)
                    .ifPresent(held -> logger.info(it + " ended while " + held));
            connection.close(RELEASE_BOUND);
        });
    }

    /**
     * The shutdown begins: requests from now on are rejected, and a session that ends is the shutdown's to
     * report. The connection manager's close then stops the listening id and disconnects and releases what it
     * accepted.
     */
    void stopAccepting() {
        stopping = true;
    }

    /** The name of its listening CM id (the shutdown report's), or null when not listening. */
    @Nullable String listeningIdName() {
        ConnectionListener l = listening;
        return l == null ? null : l.cmId().name();
    }

    /** The shutdown released the connections it accepted: they are no longer this listener's. */
    void stopped() {
        listening = null;
        int n = sessions.size();
        sessions.clear();
        for (int i = 0; i < n; i++) {
            observer.disconnected("listener", name);
        }
    }

    @Override
    public String toString() {
        return "RdmaListener '" + name + "' on " + RdmaPeer.format(address()) + ", " + sessions.size()
                + " connection(s)";
    }
}
