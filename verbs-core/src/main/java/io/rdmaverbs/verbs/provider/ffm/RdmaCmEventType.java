package io.rdmaverbs.verbs.provider.ffm;

/**
 * {@code enum rdma_cm_event_type} of {@code <rdma/rdma_cma.h>}, in header order: the ordinal is the C
 * value, which the ABI test checks. {@code rdma_event_str(3)} returns each constant's C name.
 */
enum RdmaCmEventType {
    ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_REQUEST, CONNECT_RESPONSE, CONNECT_ERROR,
    UNREACHABLE, REJECTED, ESTABLISHED, DISCONNECTED, DEVICE_REMOVAL, MULTICAST_JOIN, MULTICAST_ERROR,
    ADDR_CHANGE, TIMEWAIT_EXIT;

    private static final RdmaCmEventType[] BY_VALUE = values();

    /** The type of a value read from {@code rdma_cm_event.event}; a newer librdmacm's unknown value is an error. */
    static RdmaCmEventType of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("rdma_cm_event.event " + value + " is not an rdma_cm_event_type this "
                    + "binding knows (RDMA_CM_EVENT_ADDR_RESOLVED..RDMA_CM_EVENT_TIMEWAIT_EXIT)");
        }
        return BY_VALUE[value];
    }

    /** The C name, as {@code rdma_event_str(3)} spells it. */
    String cName() {
        return "RDMA_CM_EVENT_" + name();
    }
}
