package io.rdmaverbs.verbs;

/** The kinds of resource in the graph, with the verb that releases each. */
public enum ResourceKind {
    DEVICE_CONTEXT("ibv_close_device"),
    PROTECTION_DOMAIN("ibv_dealloc_pd"),
    XRC_DOMAIN("ibv_close_xrcd"),
    COMPLETION_CHANNEL("ibv_destroy_comp_channel"),
    COMPLETION_QUEUE("ibv_destroy_cq"),
    SHARED_RECEIVE_QUEUE("ibv_destroy_srq"),
    QUEUE_PAIR("ibv_destroy_qp"),
    XRC_RECEIVE_QP_REGISTRATION("ibv_destroy_qp"),
    MEMORY_REGION("ibv_dereg_mr"),
    ADDRESS_HANDLE("ibv_destroy_ah"),
    MULTICAST_ATTACHMENT("ibv_detach_mcast"),
    CM_EVENT_CHANNEL("rdma_destroy_event_channel"),
    CM_ID("rdma_destroy_id"),
    CM_EVENT("rdma_ack_cm_event"),
    /**
     * A handle on memory a connection's peer exported to this side: no native object (the peer's rkey is
     * only used in work requests), so closing it forgets it.
     */
    REMOTE_REGION("(forget)");

    private final String releaseVerb;

    ResourceKind(String releaseVerb) {
        this.releaseVerb = releaseVerb;
    }

    /** The libibverbs (or librdmacm) call that releases a resource of this kind. */
    public String releaseVerb() {
        return releaseVerb;
    }

    /** A short lower-case label used in default names: {@code pd}, {@code cq}, {@code qp}. */
    public String shortName() {
        return switch (this) {
            case DEVICE_CONTEXT -> "ctx";
            case PROTECTION_DOMAIN -> "pd";
            case XRC_DOMAIN -> "xrcd";
            case COMPLETION_CHANNEL -> "channel";
            case COMPLETION_QUEUE -> "cq";
            case SHARED_RECEIVE_QUEUE -> "srq";
            case QUEUE_PAIR -> "qp";
            case XRC_RECEIVE_QP_REGISTRATION -> "xrc-rcv-qp";
            case MEMORY_REGION -> "mr";
            case ADDRESS_HANDLE -> "ah";
            case MULTICAST_ATTACHMENT -> "mcast";
            case CM_EVENT_CHANNEL -> "cm-channel";
            case CM_ID -> "cm-id";
            case CM_EVENT -> "cm-event";
            case REMOTE_REGION -> "remote-region";
        };
    }
}
