package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import io.rdmaverbs.spring.boot.connections.ConnectionsShutdownReport.Departure;
import io.rdmaverbs.spring.boot.connections.ConnectionsShutdownReport.Role;
import io.rdmaverbs.spring.boot.connections.ConnectionsShutdownReport.Stopped;
import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.connection.ConnectionState;
import io.rdmaverbs.verbs.connection.Connections;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The connections' stop in dependency order, in phases, each one INFO line per object, all within one
 * deadline (its {@code disconnect-timeout}):
 * <ol>
 * <li>every listener stops listening ({@code rdma_destroy_id(3)} of its listening id; requests not answered
 * yet are rejected), so nothing new is accepted while the rest goes;</li>
 * <li>every peer stops its connect loop; then every connection, the peers' and the listeners' accepted
 * ones, gets {@code rdma_disconnect(3)}, all of them before one wait for all their
 * RDMA_CM_EVENT_DISCONNECTED until the deadline (the other side sees its DISCONNECTED);</li>
 * <li>each session's completion thread polls what the QP's error state flushed (ibv_poll_cq(3):
 * WR_FLUSH_ERR) for a short grace, then ends;</li>
 * <li>each connection is released, its QP before its id, the id before what it was made on, the line
 * listing each release verb and resource in the order done, and what was left with its reason;</li>
 * <li>the connection manager's event channel goes ({@code rdma_destroy_event_channel(3)} needs every id
 * of it destroyed first).</li>
 * </ol>
 * One deadline, not one per connection: a shutdown with many connections to a host that never answers
 * still ends in time.
 */
final class ConnectionsShutdown {

    private static final Log logger = LogFactory.getLog(ConnectionsShutdown.class.getPackageName());

    /** One connection on its way down, whose it is, and the words of its lines. */
    private record Departing(RdmaSession session, Role role, String name, @Nullable InetSocketAddress remote,
            String disconnected, String released) {

        static Departing ofPeer(RdmaPeer peer, RdmaSession session) {
            InetSocketAddress remote = session.peerAddress();
            String to = RdmaPeer.format(remote);
            return new Departing(session, Role.PEER, peer.name(), remote, "RDMA peer '" + peer.name()
                    + "' disconnected from " + to, "RDMA peer '" + peer.name() + "' connection to " + to + " released");
        }

        static Departing ofListener(RdmaListener listener, RdmaSession session) {
            InetSocketAddress remote = session.peerAddress();
            String from = "RDMA listener '" + listener.name() + "' connection from " + RdmaPeer.format(remote);
            return new Departing(session, Role.LISTENER, listener.name(), remote, from + " disconnected",
                    from + " released");
        }

        /** After the release: from what was read before it (the released CM id answers nothing). */
        Departure departure(Optional<String> refused, Waited waited, int flushed, CloseReport release) {
            return new Departure(role, name, session.connection().name(), remote, refused.orElse(null),
                    waited.after().orElse(null), waited.state(), flushed, release);
        }
    }

    /** How the wait for a connection's DISCONNECTED ended. */
    private record Waited(Optional<Duration> after, ConnectionState state) {
    }

    private final long started = System.nanoTime();
    private final long deadline;
    private final Duration timeout;
    private final List<Stopped> stoppedOnes = new ArrayList<>();
    private final List<Departure> departures = new ArrayList<>();

    /** @param timeout the whole stop's bound: {@code rdma.verbs.connections.disconnect-timeout} */
    ConnectionsShutdown(Duration timeout) {
        this.timeout = timeout;
        this.deadline = started + timeout.toNanos();
    }

    /**
     * Runs the phases on {@code listeners} and {@code peers} (stopped in the reverse of their creation),
     * then closes {@code connections}' event channel.
     *
     * @return what was stopped, for the summary line: {@code peer 'echo'}, {@code listener 'echo' (2
     *         connection(s) disconnected)}
     */
    List<String> run(List<RdmaListener> listeners, List<RdmaPeer> peers, Connections connections) {
        List<String> stopped = new ArrayList<>();
        // a. Nothing new comes in.
        List<InetSocketAddress> listened = new ArrayList<>();
        for (RdmaListener listener : listeners.reversed()) {
            listened.add(listener.address());
            listener.stopListening();
        }
        // b. Nothing reconnects; then every connection is told, before any wait.
        List<Departing> departing = new ArrayList<>();
        for (RdmaPeer peer : peers.reversed()) {
            Optional<RdmaSession> connected = peer.stopConnecting(deadline);
            connected.ifPresent(s -> departing.add(Departing.ofPeer(peer, s)));
            stopped.add("peer '" + peer.name() + "'");
            stoppedOnes.add(new Stopped(Role.PEER, peer.name(), peer.remoteAddress(), connected.isPresent()));
        }
        for (RdmaListener listener : listeners.reversed()) {
            List<RdmaSession> accepted = listener.takeSessions();
            stoppedOnes.add(new Stopped(Role.LISTENER, listener.name(), listened.removeFirst(), !accepted.isEmpty()));
            accepted.forEach(s -> departing.add(Departing.ofListener(listener, s)));
            if (accepted.isEmpty()) {
                logger.info("RDMA listener '" + listener.name() + "' had no connection to disconnect");
            }
            stopped.add("listener '" + listener.name() + "' (" + accepted.size() + " connection(s) disconnected)");
        }
        List<Optional<String>> refused = departing.stream().map(d -> d.session().disconnect()).toList();
        List<Waited> waits = new ArrayList<>();
        for (int i = 0; i < departing.size(); i++) {
            Departing d = departing.get(i);
            Optional<Duration> after = d.session().awaitDisconnected(left());
            waits.add(new Waited(after, d.session().connection().state()));
            logger.info(d.disconnected() + ": " + refused.get(i).map(e -> "rdma_disconnect failed (" + e + "), ")
                    .orElse("") + after.map(t -> d.session().connection().state() + " after " + t.toMillis() + " ms")
                            .orElse("no RDMA_CM_EVENT_DISCONNECTED within " + timeout.toMillis() + " ms"));
        }
        // c. The flushed work requests are polled, counted in the release line.
        Duration grace = left().compareTo(RdmaSession.FLUSH_GRACE) < 0 ? left() : RdmaSession.FLUSH_GRACE;
        List<Integer> flushed = departing.stream().map(d -> d.session().flush(grace)).toList();
        // d. Each connection's resources, dependents first.
        for (int i = 0; i < departing.size(); i++) {
            Departing d = departing.get(i);
            CloseReport release = d.session().release(left());
            logger.info(d.released() + ": " + flushed.get(i) + " flushed work request(s); " + describe(release));
            departures.add(d.departure(refused.get(i), waits.get(i), flushed.get(i), release));
        }
        // e. The channel the ids were made on.
        connections.close();
        logger.info("RDMA connections: connection manager event channel closed (rdma_destroy_event_channel)");
        return stopped;
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

    /** What {@link #run} did, for the {@link RdmaConnectionsStoppedEvent}. */
    ConnectionsShutdownReport report() {
        return new ConnectionsShutdownReport(elapsed(), stoppedOnes, departures);
    }
}
