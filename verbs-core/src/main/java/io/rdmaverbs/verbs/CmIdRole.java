package io.rdmaverbs.verbs;

/**
 * Where a {@link CmId} is in its life, as the graph follows it: from the verbs called on it and the
 * events its channel delivered ({@code rdma_cm(7)}).
 */
public enum CmIdRole {
    /** Created ({@code rdma_create_id(3)}); not bound, nothing resolved. */
    IDLE,
    /** Bound to a local address ({@code rdma_bind_addr(3)}). */
    BOUND,
    /**
     * Resolving towards a destination ({@code rdma_resolve_addr(3)}, {@code rdma_resolve_route(3)}), until
     * {@code RDMA_CM_EVENT_ROUTE_RESOLVED} and the connect.
     */
    RESOLVING,
    /** Listening for connection requests ({@code rdma_listen(3)}). */
    LISTENING,
    /** {@code rdma_connect(3)} or {@code rdma_accept(3)} called; waiting for {@code RDMA_CM_EVENT_ESTABLISHED}. */
    CONNECTING,
    /** The id of a {@code RDMA_CM_EVENT_CONNECT_REQUEST}, neither accepted nor rejected yet. */
    PASSIVE,
    /** {@code RDMA_CM_EVENT_ESTABLISHED} arrived. */
    CONNECTED,
    /** {@code RDMA_CM_EVENT_DISCONNECTED} arrived (either side disconnected). */
    DISCONNECTED,
    /** The request was rejected: by the peer ({@code RDMA_CM_EVENT_REJECTED}) or here ({@code rdma_reject(3)}). */
    REJECTED,
    /**
     * Resolution or connection failed ({@code ADDR_ERROR}, {@code ROUTE_ERROR}, {@code UNREACHABLE},
     * {@code CONNECT_ERROR}, {@code DEVICE_REMOVAL}).
     */
    FAILED
}
