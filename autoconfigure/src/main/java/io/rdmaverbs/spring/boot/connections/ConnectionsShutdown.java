package io.rdmaverbs.spring.boot.connections;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionCloseReport;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.ShutdownReport;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The starter's part of the connections' stop: the declared listeners stop accepting and the peers stop
 * their connect loops; then verbs-core's {@link Connections#close(Duration)} runs the one shutdown
 * sequence within {@code disconnect-timeout} (stop listening, disconnect every connection before one wait
 * for all their DISCONNECTED, poll what the QPs' error state flushed, release each connection in
 * dependency order, close the event channel), and its {@link ShutdownReport} becomes one INFO line per
 * object and phase, each connection named after the listener or peer it belongs to.
 */
final class ConnectionsShutdown {

    private static final Log logger = LogFactory.getLog(ConnectionsShutdown.class.getPackageName());

    private final long started = System.nanoTime();
    private final long deadline;
    private final Duration timeout;

    /** @param timeout the whole stop's bound: {@code rdma.verbs.connections.disconnect-timeout} */
    ConnectionsShutdown(Duration timeout) {
        this.timeout = timeout;
        this.deadline = started + timeout.toNanos();
    }

    /**
     * Stops {@code listeners} and {@code peers} (in the reverse of their creation), then closes
     * {@code connections}.
     *
     * @return the report, and what was stopped, for the summary line
     */
    Result run(List<RdmaListener> listeners, List<RdmaPeer> peers, Connections connections) {
        List<String> stopped = new ArrayList<>();
        Map<String, String> listenerNames = new HashMap<>();
        for (RdmaListener listener : listeners.reversed()) {
            listener.stopAccepting();
            String id = listener.listeningIdName();
            if (id != null) {
                listenerNames.put(id, listener.name());
            }
        }
        // Each connection's owner, in the order of the lines: the peers' (last created first), then the
        // listeners' (the same), then any the application made itself on the manager.
        Map<String, Owner> owners = new LinkedHashMap<>();
        for (RdmaPeer peer : peers.reversed()) {
            peer.stopConnecting(deadline).ifPresent(c -> owners.put(c.name(), Owner.ofPeer(peer, c)));
            stopped.add("peer '" + peer.name() + "'");
        }
        Map<String, Integer> accepted = new HashMap<>();
        List<Connection> open = connections.connections();
        for (RdmaListener listener : listeners.reversed()) {
            for (Connection c : open) {
                if (listener.accepted(c)) {
                    owners.put(c.name(), Owner.ofListener(listener, c));
                    accepted.merge(listener.name(), 1, Integer::sum);
                }
            }
        }
        ShutdownReport report = connections.close(left());
        for (ShutdownReport.ListenerStop l : report.listeners()) {
            String name = listenerNames.getOrDefault(l.listener(), l.listener());
            logger.info("RDMA listener '" + name + "' stopped listening on " + RdmaPeer.format(l.address())
                    + (l.requestsRejected() == 0 ? "" : " (" + l.requestsRejected() + " pending request(s) rejected)"));
        }
        for (RdmaListener listener : listeners.reversed()) {
            int n = accepted.getOrDefault(listener.name(), 0);
            if (n == 0) {
                logger.info("RDMA listener '" + listener.name() + "' had no connection to disconnect");
            }
            stopped.add("listener '" + listener.name() + "' (" + n + " connection(s) disconnected)");
            listener.stopped();
        }
        List<ConnectionCloseReport> closed = inOrder(report.connections(), owners);
        for (ConnectionCloseReport c : closed) {
            Owner owner = owners.getOrDefault(c.connection(), Owner.unnamed(c));
            logger.info(owner.disconnected() + ": " + disconnected(c));
        }
        for (ConnectionCloseReport c : closed) {
            Owner owner = owners.getOrDefault(c.connection(), Owner.unnamed(c));
            logger.info(owner.released() + ": " + c.flushedWorkRequests() + " flushed work request(s); "
                    + describe(c.released()));
        }
        report.failures().forEach(f -> logger.warn("RDMA connections: " + f));
        List<ResourceRef> completionChannels = report.channels().stream()
                .filter(r -> r.kind() == ResourceKind.COMPLETION_CHANNEL).toList();
        if (!completionChannels.isEmpty()) {
            logger.info("RDMA connections: completion loops stopped, " + completionChannels.stream()
                    .map(ConnectionsShutdown::released).collect(Collectors.joining(", ")));
        }
        logger.info("RDMA connections: connection manager event channel closed (rdma_destroy_event_channel)");
        return new Result(report, owners, listenerNames, stopped);
    }

    /**
     * What the stop did.
     *
     * @param report verbs-core's report
     * @param owners each connection's owner, by connection name
     * @param listenerNames each declared listener's name, by the name of its listening id
     * @param stopped what was stopped, for the summary line: {@code peer 'echo'}, {@code listener 'echo' (2
     *        connection(s) disconnected)}
     */
    record Result(ShutdownReport report, Map<String, Owner> owners, Map<String, String> listenerNames,
            List<String> stopped) {
    }

    /** The words of a connection's lines: whose it is. */
    record Owner(String kind, String name, String disconnected, String released) {

        static Owner ofPeer(RdmaPeer peer, Connection c) {
            String to = RdmaPeer.format(c.peerAddress());
            return new Owner("peer", peer.name(), "RDMA peer '" + peer.name() + "' disconnected from " + to,
                    "RDMA peer '" + peer.name() + "' connection to " + to + " released");
        }

        static Owner ofListener(RdmaListener listener, Connection c) {
            String from = "RDMA listener '" + listener.name() + "' connection from " + RdmaPeer.format(c.peerAddress());
            return new Owner("listener", listener.name(), from + " disconnected", from + " released");
        }

        static Owner unnamed(ConnectionCloseReport c) {
            String it = "RDMA connection '" + c.connection() + "' with " + RdmaPeer.format(c.peer());
            return new Owner("connection", c.connection(), it + " disconnected", it + " released");
        }
    }

    private String disconnected(ConnectionCloseReport c) {
        return switch (c.disconnect()) {
            case BY_PEER -> "DISCONNECTED by the other side";
            case NOT_CONNECTED -> "not connected";
            case FAILED -> "rdma_disconnect failed (" + c.disconnectFailure() + "), " + after(c);
            case BY_THIS_SIDE -> after(c);
        };
    }

    /** The reports in the owners' order, then those of connections no listener or peer owns. */
    private static List<ConnectionCloseReport> inOrder(List<ConnectionCloseReport> reports, Map<String, Owner> owners) {
        List<String> order = new ArrayList<>(owners.keySet());
        List<ConnectionCloseReport> sorted = new ArrayList<>(reports);
        sorted.sort(Comparator.comparingInt(r -> {
            int i = order.indexOf(r.connection());
            return i < 0 ? Integer.MAX_VALUE : i;
        }));
        return sorted;
    }

    private String after(ConnectionCloseReport c) {
        Duration after = c.disconnectedAfter();
        return after == null ? "no RDMA_CM_EVENT_DISCONNECTED within " + timeout.toMillis() + " ms"
                : "DISCONNECTED after " + after.toMillis() + " ms";
    }

    /** {@code ibv_destroy_qp qp 'cm/conn-3/qp' (#12 on rxe1), ...; left: pd '...' (#4 on rxe1): reason}. */
    static String describe(CloseReport report) {
        String closed = report.closed().stream().map(ConnectionsShutdown::released).collect(Collectors.joining(", "));
        if (report.isComplete()) {
            return closed.isEmpty() ? "nothing left to release" : closed;
        }
        String left = report.left().stream().map(l -> l.resource() + ": " + l.reason())
                .collect(Collectors.joining(", "));
        return (closed.isEmpty() ? "" : closed + "; ") + "left: " + left;
    }

    private static String released(ResourceRef ref) {
        return ref.releaseVerb() + " " + ref;
    }

    /** What is left of the deadline; at least a millisecond, so that each phase still looks once. */
    private Duration left() {
        return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    }

    /** Since the shutdown began. */
    Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - started);
    }
}
