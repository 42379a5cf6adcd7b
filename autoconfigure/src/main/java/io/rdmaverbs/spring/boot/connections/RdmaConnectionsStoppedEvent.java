package io.rdmaverbs.spring.boot.connections;

import java.util.List;
import java.util.Optional;

import io.rdmaverbs.verbs.connection.ShutdownReport;

import org.springframework.context.ApplicationEvent;

/**
 * The declared connections' shutdown is over, before the verbs teardown: published on the thread that
 * stopped them, with verbs-core's report of what {@code Connections.close(Duration)} did and whose each
 * connection was.
 */
public final class RdmaConnectionsStoppedEvent extends ApplicationEvent {

    private final ConnectionsShutdown.Result result;
    private final List<RdmaPeer> peers;

    RdmaConnectionsStoppedEvent(RdmaConnectionsLifecycle source, ConnectionsShutdown.Result result,
            List<RdmaPeer> peers) {
        super(source);
        this.result = result;
        this.peers = List.copyOf(peers);
    }

    /** What the connection manager's close stopped, disconnected and released. */
    public ShutdownReport report() {
        return result.report();
    }

    /** The peers that stopped connecting, in the order they stopped. */
    public List<RdmaPeer> peers() {
        return peers;
    }

    /** The listener or peer a connection of the report belonged to; empty for one the application made. */
    Optional<ConnectionsShutdown.Owner> owner(String connection) {
        return Optional.ofNullable(result.owners().get(connection));
    }

    /** The declared name of the listener whose listening id the report names. */
    String listenerName(String listeningId) {
        return result.listenerNames().getOrDefault(listeningId, listeningId);
    }
}
