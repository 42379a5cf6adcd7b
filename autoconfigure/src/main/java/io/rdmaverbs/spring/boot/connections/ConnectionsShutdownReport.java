package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.connection.ConnectionState;
import org.jspecify.annotations.Nullable;

/**
 * What the connections' shutdown did ({@link RdmaConnectionsLifecycle}), the data behind its log lines:
 * the listeners and peers it stopped, in the order it stopped them, and each connection it disconnected
 * and released. A connection that ended before the shutdown is not here: its end was published then
 * ({@link RdmaPeerDownEvent}, {@link RdmaConnectionEndedEvent}).
 *
 * @param took from the shutdown's start to its event channel's close
 * @param stopped the listeners (stopped listening) and peers (stopped connecting)
 * @param departures the connections the shutdown disconnected and released, in that order
 */
public record ConnectionsShutdownReport(Duration took, List<Stopped> stopped, List<Departure> departures) {

    public ConnectionsShutdownReport {
        stopped = List.copyOf(stopped);
        departures = List.copyOf(departures);
    }

    /** The role of a {@link Stopped} or {@link Departure}: which kind of declaration it belongs to. */
    public enum Role {
        LISTENER, PEER
    }

    /**
     * A listener that stopped listening, or a peer that stopped connecting.
     *
     * @param address the listener's bound address; the peer's remote address
     * @param connected whether it had a connection, now among the departures
     */
    public record Stopped(Role role, String name, InetSocketAddress address, boolean connected) {
    }

    /**
     * One connection the shutdown disconnected and released.
     *
     * @param connection the connection's name ({@code cm/conn-3})
     * @param remote the other side's address
     * @param disconnectFailure why {@code rdma_disconnect(3)} failed; null when it was sent
     * @param disconnectedAfter from the disconnect to RDMA_CM_EVENT_DISCONNECTED; null when none came within
     *     the shutdown's {@code disconnect-timeout}
     * @param state the connection's state after the wait
     * @param flushed the work requests the disconnect flushed ({@code IBV_WC_WR_FLUSH_ERR}, ibv_poll_cq(3))
     * @param release what its release closed, in order, and what it left
     */
    public record Departure(Role role, String name, String connection, @Nullable InetSocketAddress remote,
            @Nullable String disconnectFailure, @Nullable Duration disconnectedAfter, ConnectionState state,
            int flushed, CloseReport release) {
    }
}
