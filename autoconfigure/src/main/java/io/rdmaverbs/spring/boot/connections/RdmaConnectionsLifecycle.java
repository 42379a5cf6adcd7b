package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.error.VerbsException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the declared listeners and peers once every bean exists, and stops them before the verbs
 * teardown:
 * <ul>
 * <li>start: each listener binds and listens, on the startup thread (EADDRINUSE, EADDRNOTAVAIL fail the
 * startup with a {@link ListenerBindException}, once the listeners started before are stopped);
 * each peer starts connecting on a thread of its own; only a {@code required} peer is waited for;</li>
 * <li>stop (a phase above {@link VerbsTeardown#PHASE}, so it runs first): listeners stop accepting and
 * peers stop their connect loops, then verbs-core's one shutdown sequence ({@code Connections.close}, see
 * {@link ConnectionsShutdown}), all within {@code disconnect-timeout}: listeners stop listening, every
 * connection is disconnected (the other side sees RDMA_CM_EVENT_DISCONNECTED), then waited for; the
 * flushed work requests are polled; each connection is released, dependents first; the connection
 * manager's event channel is closed. What is left after that (a connection whose release was refused) is
 * the verbs teardown's, under its policy.</li>
 * </ul>
 * The stop runs on a thread of its own, so the context waits for it at most
 * {@code spring.lifecycle.timeout-per-shutdown-phase}, even while a peer is in the middle of an attempt
 * to a host that never answers.
 */
public final class RdmaConnectionsLifecycle implements SmartLifecycle {

    /** Above the verbs teardown (and its async-event readers): connections end before their resources go. */
    public static final int PHASE = VerbsTeardown.PHASE + 256;

    private static final Log logger = LogFactory.getLog(RdmaConnectionsLifecycle.class.getPackageName());

    private final RdmaConnectionsFactory factory;
    private final Duration disconnectTimeout;
    private final ApplicationEventPublisher events;
    private volatile boolean running;

    /**
     * @param disconnectTimeout the bound of the whole stop: of the wait for the connections' DISCONNECTED
     *        above all
     * @param events where the stop's {@link RdmaConnectionsStoppedEvent} goes
     */
    public RdmaConnectionsLifecycle(RdmaConnectionsFactory factory, Duration disconnectTimeout,
            ApplicationEventPublisher events) {
        this.factory = factory;
        this.disconnectTimeout = disconnectTimeout;
        this.events = events;
    }

    @Override
    public void start() {
        List<RdmaListener> listeners = factory.listeners();
        for (RdmaListener listener : listeners) {
            try {
                listener.start();
            } catch (VerbsException e) {
                ListenerBindException failure = new ListenerBindException(listener.name(),
                        RdmaPeer.format(listener.address()), portHolder(listener, listeners), e);
                // As for a required peer: a failed refresh stops no lifecycle, the listening ids would stay.
                stop();
                throw failure;
            } catch (InvalidConnectionSettingException e) {
                // Its handler, resolved now that every endpoint bean exists: missing, ambiguous or doubly given.
                stop();
                throw e;
            }
        }
        List<RdmaPeer> peers = factory.peers();
        peers.forEach(RdmaPeer::start);
        running = true;
        for (RdmaPeer peer : peers) {
            if (peer.isRequired()) {
                try {
                    awaitRequired(peer);
                } catch (RequiredPeerUnavailableException e) {
                    // A failed refresh destroys the beans but stops no lifecycle: end the loops here.
                    stop();
                    throw e;
                }
            }
        }
    }

    /** The listener of this application that listens on {@code failed}'s port and address, if any. */
    private static @Nullable String portHolder(RdmaListener failed, List<RdmaListener> listeners) {
        InetSocketAddress wanted = failed.address();
        for (RdmaListener other : listeners) {
            InetSocketAddress bound = other.address();
            if (other != failed && other.isListening() && bound.getPort() == wanted.getPort()
                    && (bound.getAddress().isAnyLocalAddress() || wanted.getAddress().isAnyLocalAddress()
                            || Arrays.equals(bound.getAddress().getAddress(), wanted.getAddress().getAddress()))) {
                return other.name();
            }
        }
        return null;
    }

    private static void awaitRequired(RdmaPeer peer) {
        ConnectionDeclarations.Peer declared = peer.declaration();
        Duration bound = declared.resolveTimeout().plus(declared.connectTimeout());
        boolean connected;
        try {
            connected = peer.awaitConnected(bound);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        if (!connected) {
            throw new RequiredPeerUnavailableException(peer.name(), RdmaPeer.format(peer.remoteAddress()), bound,
                    peer.attempts(), peer.lastError() == null ? null : new IllegalStateException(peer.lastError()));
        }
    }

    @Override
    public void stop() {
        ConnectionsShutdown shutdown = new ConnectionsShutdown(disconnectTimeout);
        ConnectionsShutdown.Result result;
        try {
            result = shutdown.run(factory.listeners(), factory.peers(), factory.connections());
        } finally {
            running = false;
        }
        List<String> stopped = result.stopped();
        if (!stopped.isEmpty()) {
            logger.info("RDMA connections stopped in " + shutdown.elapsed().toMillis()
                    + " ms, before the verbs teardown: " + String.join(", ", stopped)
                    + "; connection manager event channel closed");
        }
        events.publishEvent(new RdmaConnectionsStoppedEvent(this, result, factory.peers().reversed()));
    }

    /** Stops on a thread of its own: the context's wait is bounded by its shutdown-phase timeout. */
    @Override
    public void stop(Runnable callback) {
        Thread.ofPlatform().daemon().name("rdma-connections-stop").start(() -> {
            try {
                stop();
            } finally {
                callback.run();
            }
        });
    }

    /** A pause is no shutdown: connections stay up for the restart. */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
