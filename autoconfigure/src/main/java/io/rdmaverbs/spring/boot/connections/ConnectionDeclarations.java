package io.rdmaverbs.spring.boot.connections;

import java.time.Duration;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The listeners and peers an application declares under {@code rdma.verbs.connections}: what
 * {@link ConnectionsRegistrar} defines beans for and {@link RdmaConnectionsFactory} creates. They are
 * bound as entries of the auto-configuration's properties and live here, with the types that consume
 * them, so that this package does not depend on the auto-configuration.
 */
public final class ConnectionDeclarations {

    /** The prefix of every connection property. */
    public static final String PREFIX = "rdma.verbs.connections";

    /** The property path every listener is declared under. */
    public static final String LISTENERS = PREFIX + ".listeners";

    /** The property path every peer is declared under. */
    public static final String PEERS = PREFIX + ".peers";

    /** The port of {@code rping(1)} and of every example: 7471. */
    public static final int DEFAULT_PORT = 7471;

    private ConnectionDeclarations() {
    }

    /** The property path of the listener declared under {@code name}. */
    public static String listenerPath(String name) {
        return LISTENERS + "." + name;
    }

    /** The property path of the peer declared under {@code name}. */
    public static String peerPath(String name) {
        return PEERS + "." + name;
    }

    /**
     * A listening CM id ({@code rdma_listen(3)}) that accepts every connection request and hands the
     * connection to the application's message handler.
     *
     * @param address IP literal to listen on; an IPv6 link-local address takes its scope (fe80::1%eth0).
     *     Set this or device.
     * @param device RDMA device whose address to listen on (its port 1's link-local address, the GID
     *     rxe derives from its netdev). Set this or address.
     * @param port Port to listen on; 0 picks a free one.
     * @param backlog Connection requests the CM queues before the listener takes them (rdma_listen's backlog).
     * @param connection Queues and buffers of each accepted connection.
     * @param handler Bean name of the RdmaMessageHandler that receives each accepted connection's
     *     messages; may be left out when the context has exactly one.
     * @param heartbeatInterval Idle time after which a KEEPALIVE frame goes on each accepted connection, so
     *     that a connection whose peer vanished with the link (its disconnect never arrived) is found and
     *     released. 0 switches it off.
     * @param concurrency Messages handled at once over all the listener's connections, each on a virtual
     *     thread; 0: as many as arrive (each connection still sends at most receive-buffers ahead).
     * @param ordered Whether the messages of each connection are handled one at a time, in the order they
     *     arrived (the session's lane): a slow message then holds up its own connection's next ones.
     */
    public record Listener(@Nullable String address, @Nullable String device,
            @DefaultValue("7471") @Min(0) @Max(65535) int port, @DefaultValue("16") @Positive int backlog,
            @DefaultValue @Valid PerConnection connection, @Nullable String handler,
            @DefaultValue("5s") @NotNull Duration heartbeatInterval, @DefaultValue("0") @PositiveOrZero int concurrency,
            @DefaultValue("false") boolean ordered) {
    }

    /**
     * A connection this application makes to a listener of another host, reconnected whenever it is lost.
     *
     * @param address IP literal of the remote listener; an IPv6 link-local address takes its scope
     *     (fe80::1%eth0).
     * @param port Port of the remote listener.
     * @param resolveTimeout How long address and route resolution may take, each (rdma_resolve_addr,
     *     rdma_resolve_route).
     * @param connectTimeout How long the connection handshake may take once the route is resolved.
     * @param required Whether the application must not start without this peer: startup then waits for
     *     the first connection for at most resolve-timeout + connect-timeout, and fails when there is
     *     none. Otherwise startup never waits, and the peer connects in the background.
     * @param connection Queues and buffers of the connection.
     * @param heartbeatInterval Idle time after which a KEEPALIVE frame goes, to find a dead link while the
     *     connection is idle: RC has no keepalive, so a cut link is only noticed when a send exhausts its
     *     retries. 0 switches it off.
     * @param requestTimeout How long a request on this peer waits for its reply (RdmaPeer.requestAsync,
     *     RdmaTemplate.sendAndReceive), unless the call says.
     * @param reconnect Backoff of the connect attempts (a Resilience4j Retry).
     * @param circuitBreaker Circuit breaker that stops connect attempts for a while after repeated failures.
     */
    public record Peer(@Nullable String address, @DefaultValue("7471") @Min(1) @Max(65535) int port,
            @DefaultValue("2s") @NotNull Duration resolveTimeout, @DefaultValue("5s") @NotNull Duration connectTimeout,
            @DefaultValue("false") boolean required, @DefaultValue @Valid PerConnection connection,
            @DefaultValue("5s") @NotNull Duration heartbeatInterval, @DefaultValue @Valid Reconnect reconnect,
            @DefaultValue @Valid CircuitBreaker circuitBreaker, @DefaultValue("30s") @NotNull Duration requestTimeout) {
    }

    /**
     * The queues, buffers and handshake of one connection: one RC queue pair and its session (the
     * session protocol of verbs-core, docs/connections.md), one completion queue served by the connection
     * manager's completion threads, and registered buffers for eager messages.
     *
     * @param sendQueueDepth Sends in flight at most (max_send_wr).
     * @param receiveQueueDepth Receives posted at most (max_recv_wr); at least receive-buffers.
     * @param completionQueueSize Completions the CQ holds; at least send-queue-depth + receive-queue-depth.
     * @param receiveBuffers Receive buffers posted before the connection is made, and refilled after each
     *     message is handled: the number of messages the peer may send ahead.
     * @param bufferSize Size of each buffer, the session protocol's 24-byte frame header included: the
     *     largest message sent in one SEND; a larger one goes by rendezvous (the peer reads it with RDMA
     *     READ), up to max-message-size.
     * @param maxInline Largest message sent inline (max_inline_data), in bytes; 0 for none.
     * @param maxMessageSize Largest message the connection sends and accepts.
     * @param responderResources RDMA READs and atomics the peer may have outstanding on this connection
     *     (responder_resources of rdma_connect/rdma_accept); at most the device's max_qp_rd_atom.
     * @param initiatorDepth RDMA READs and atomics this side keeps outstanding (initiator_depth): a large
     *     message is read that many chunks at a time; at most the device's max_qp_init_rd_atom.
     * @param retryCount Transport retries before a send fails with RETRY_EXC_ERR (0..7; rxe reads 7 as
     *     forever, so a cut link would go unnoticed).
     * @param rnrRetryCount Retries of a send the receiver had no buffer for (0..7, 7 infinite); with the
     *     session protocol's credits no such send is ever posted.
     */
    public record PerConnection(@DefaultValue("16") @Positive int sendQueueDepth,
            @DefaultValue("16") @Positive int receiveQueueDepth, @DefaultValue("64") @Positive int completionQueueSize,
            @DefaultValue("16") @Positive int receiveBuffers, @DefaultValue("4KB") @NotNull DataSize bufferSize,
            @DefaultValue("0") @PositiveOrZero int maxInline, @DefaultValue("64MB") @NotNull DataSize maxMessageSize,
            @DefaultValue("4") @Min(0) @Max(255) int responderResources,
            @DefaultValue("4") @Min(0) @Max(255) int initiatorDepth, @DefaultValue("6") @Min(0) @Max(7) int retryCount,
            @DefaultValue("7") @Min(0) @Max(7) int rnrRetryCount) {
    }

    /**
     * The Resilience4j Retry of a peer's connect attempts: exponential backoff between attempts.
     *
     * @param initialBackoff Wait after the first failed attempt.
     * @param multiplier Factor each further wait grows by.
     * @param maxBackoff Longest wait between two attempts.
     * @param maxAttempts Attempts before the peer gives up and stays down; 0 retries forever.
     */
    public record Reconnect(@DefaultValue("200ms") @NotNull Duration initialBackoff,
            @DefaultValue("2.0") @DecimalMin("1.0") double multiplier,
            @DefaultValue("10s") @NotNull Duration maxBackoff, @DefaultValue("0") @PositiveOrZero int maxAttempts) {
    }

    /**
     * The Resilience4j circuit breaker of a peer: every connect attempt counts towards its failure rate;
     * once open, attempts fail at once until the wait is over, then a trial attempt decides.
     *
     * @param failureRateThreshold Failure rate, in percent, that opens the breaker.
     * @param slidingWindowSize Number of connect attempts the failure rate is computed over (and needed
     *     before it counts).
     * @param waitDurationInOpenState How long an open breaker refuses attempts before it lets a trial
     *     through: the longest a peer may stay down after its listener is back.
     */
    public record CircuitBreaker(@DefaultValue("50") @DecimalMin("1") @DecimalMax("100") float failureRateThreshold,
            @DefaultValue("10") @Min(1) int slidingWindowSize,
            @DefaultValue("10s") @NotNull Duration waitDurationInOpenState) {
    }
}
