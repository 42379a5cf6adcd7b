package io.rdmaverbs.verbs.attr;

/** {@code enum rdma_cm_event_type} ({@code rdma_get_cm_event(3)}), in header order. */
public enum CmEventType {
    ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_REQUEST, CONNECT_RESPONSE, CONNECT_ERROR,
    UNREACHABLE, REJECTED, ESTABLISHED, DISCONNECTED, DEVICE_REMOVAL, MULTICAST_JOIN, MULTICAST_ERROR,
    ADDR_CHANGE, TIMEWAIT_EXIT;

    /** The C name, as {@code rdma_event_str(3)} spells it. */
    public String cName() {
        return "RDMA_CM_EVENT_" + name();
    }
}
