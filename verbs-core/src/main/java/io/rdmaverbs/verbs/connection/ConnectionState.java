package io.rdmaverbs.verbs.connection;

/** Where a {@link Connection} is, as the CM events of its id say. */
public enum ConnectionState {
    /** Accepted, or connecting: waiting for {@code RDMA_CM_EVENT_ESTABLISHED}. */
    CONNECTING,
    /** {@code RDMA_CM_EVENT_ESTABLISHED}: both QPs are in RTS. */
    CONNECTED,
    /** {@code RDMA_CM_EVENT_DISCONNECTED}: either side disconnected; the QP is in ERR, its work requests flush. */
    DISCONNECTED,
    /** The handshake failed after the accept ({@code RDMA_CM_EVENT_CONNECT_ERROR}, {@code UNREACHABLE}...). */
    FAILED,
    /** {@link Connection#close()} released its resources. */
    CLOSED
}
