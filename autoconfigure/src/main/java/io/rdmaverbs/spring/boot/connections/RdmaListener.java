package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionListener;
import io.rdmaverbs.verbs.connection.ConnectionRequest;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.ListenSpec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;

/**
 * A listening CM id declared under {@code rdma.verbs.connections.listeners.<name>}: it accepts every
 * connection request and hands each connection, as a {@link RdmaSession}, to the application's
 * {@link RdmaMessageHandler}. Each accept is logged (INFO, {@code RDMA listener '<name>' accepted
 * <address>}) and published as a {@link RdmaConnectionAcceptedEvent}; a session ends when the other side
 * disconnects or a work request fails, and is then released.
 */
public final class RdmaListener {

    private static final Log logger = LogFactory.getLog(RdmaListener.class.getPackageName());

    private final String name;
    private final InetSocketAddress bindAddress;
    private final ConnectionDeclarations.Listener settings;
    private final Connections connections;
    private final RdmaMessageHandler handler;
    private final ConnectionObserver observer;
    private final ApplicationEventPublisher events;
    private final Set<RdmaSession> sessions = ConcurrentHashMap.newKeySet();
    private volatile @Nullable ConnectionListener listening;
    private volatile boolean stopping;
    private volatile @Nullable Thread heartbeats;

    RdmaListener(String name, InetSocketAddress bindAddress, ConnectionDeclarations.Listener settings,
            Connections connections, RdmaMessageHandler handler, ConnectionObserver observer,
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

    /** The connections it accepted that are still open. */
    public List<RdmaSession> sessions() {
        return List.copyOf(sessions);
    }

    /** {@code rdma_bind_addr} and {@code rdma_listen}: fails at once (EADDRINUSE, EADDRNOTAVAIL...). */
    void start() {
        if (listening != null) {
            return;
        }
        stopping = false;
        ListenSpec spec = ListenSpec.on(bindAddress).backlog(settings.backlog())
                .connection(ConnectionSpecs.of(settings.connection()));
        listening = connections.listen(spec, this::onRequest);
        logger.info("RDMA listener '" + name + "' listening on " + RdmaPeer.format(address()));
        Duration interval = settings.heartbeatInterval();
        if (!interval.isZero()) {
            heartbeats = Thread.ofPlatform().daemon().name("rdma-listener-" + name + "-heartbeat")
                    .start(() -> beat(interval));
        }
    }

    /** An empty send on each accepted connection per interval, until the listener stops. */
    private void beat(Duration interval) {
        while (!stopping) {
            try {
                Thread.sleep(interval);
            } catch (InterruptedException e) {
                return;
            }
            sessions.forEach(RdmaSession::heartbeat);
        }
    }

    private void onRequest(ConnectionRequest request) {
        if (stopping) {
            request.reject(new byte[0]);
            observer.rejected("listener", name);
            return;
        }
        long started = System.nanoTime();
        Connection connection = request.accept();
        RdmaSession session = new RdmaSession("listener '" + name + "' <- " + RdmaPeer.format(request.peerAddress()),
                connection, handler, this::lost);
        sessions.add(session);
        if (stopping && sessions.remove(session)) {
            // Accepted while the shutdown took the sessions: it never saw this one.
            session.close(Duration.ZERO);
            return;
        }
        observer.established("listener", name, Duration.ofNanos(System.nanoTime() - started));
        logger.info("RDMA listener '" + name + "' accepted " + RdmaPeer.format(session.peerAddress()));
        events.publishEvent(new RdmaConnectionAcceptedEvent(this, request.peerAddress(), session));
    }

    private void lost(RdmaSession session, String reason, List<String> failedCompletions) {
        if (!sessions.remove(session)) {
            return;
        }
        observer.disconnected("listener", name);
        logger.info("RDMA listener '" + name + "' connection from " + RdmaPeer.format(session.peerAddress())
                + " ended: " + reason + (failedCompletions.isEmpty() ? ""
                        : " (failed work completions: " + String.join(", ", failedCompletions) + ")"));
        events.publishEvent(
                new RdmaConnectionEndedEvent(this, session.peerAddress(), session, reason, failedCompletions));
        // Off the completion thread that told us: the close joins it. Lost with its port (a link cut), it
        // goes once the port is back: its DREQ could reach nobody before (PortWait).
        Thread.ofVirtual().name("rdma-release-" + name).start(() -> {
            String owner = "RDMA listener '" + name + "' connection from " + RdmaPeer.format(session.peerAddress());
            PortWait.untilActive(owner, session, () -> stopping);
            session.close(Duration.ofSeconds(2));
        });
    }

    /**
     * The shutdown's first phase: stops listening ({@code rdma_destroy_id(3)} of the listening id, the
     * requests not answered yet rejected first) and the heartbeat. What it accepted stays up, for the
     * shutdown's next phases ({@link #takeSessions()}).
     */
    void stopListening() {
        stopping = true;
        Thread beating = heartbeats;
        if (beating != null) {
            beating.interrupt();
        }
        ConnectionListener l = listening;
        if (l == null) {
            return;
        }
        InetSocketAddress address = address();
        listening = null;
        l.close(ClosePolicy.CASCADE);
        logger.info("RDMA listener '" + name + "' stopped listening on " + RdmaPeer.format(address));
    }

    /** Hands the connections it accepted to the shutdown, which disconnects and releases them. */
    List<RdmaSession> takeSessions() {
        List<RdmaSession> taken = List.copyOf(sessions);
        for (RdmaSession session : taken) {
            // Removed here, a loss the session reports from now on is the shutdown's, not this listener's.
            if (sessions.remove(session)) {
                observer.disconnected("listener", name);
            }
        }
        return taken;
    }

    @Override
    public String toString() {
        return "RdmaListener '" + name + "' on " + RdmaPeer.format(address()) + ", " + sessions.size()
                + " connection(s)";
    }
}
