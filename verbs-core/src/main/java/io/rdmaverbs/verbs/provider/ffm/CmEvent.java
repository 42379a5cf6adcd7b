package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * An {@code rdma_cm_event} copied out of librdmacm's memory, so that it stays readable after
 * {@code rdma_ack_cm_event(3)}; {@link #event()} is the native event that still has to be acked.
 *
 * @param event the {@code struct rdma_cm_event *} to pass to {@code rdma_ack_cm_event}
 * @param type what happened
 * @param status 0, a negative errno ({@code -ETIMEDOUT} on {@code ADDR_ERROR}, {@code -ENODEV}, ...), or
 *        on {@code REJECTED} the transport's reject reason (IB CM: {@link #IB_CM_REJ_CONSUMER_DEFINED}
 *        when the peer called {@code rdma_reject(3)})
 * @param id the id the event is for; on {@code CONNECT_REQUEST} a new id the application now owns
 * @param listenId on {@code CONNECT_REQUEST} the listening id the request arrived on, else NULL
 * @param conn {@code param.conn}, for the events of an RC id that carry connection parameters
 */
record CmEvent(MemorySegment event, RdmaCmEventType type, int status, MemorySegment id, MemorySegment listenId,
        Optional<CmConnParam> conn) {

    /*
     * Reject reasons of the IB CM (IBTA spec, CM REJ "Reason" table; the kernel's enum ib_cm_rej_reason).
     * No userspace header defines them, so they are not in the ABI check; rxe reports these.
     */
    /** The peer called {@code rdma_reject(3)}; its private data is in {@link #conn()}. */
    static final int IB_CM_REJ_CONSUMER_DEFINED = 28;
    /** Nobody listens on the destination port. */
    static final int IB_CM_REJ_INVALID_SERVICE_ID = 8;
    /** The peer's CM still remembers a previous connection of this QP number. */
    static final int IB_CM_REJ_STALE_CONN = 10;

    /** Reads {@code event} (a {@code struct rdma_cm_event *} from {@code rdma_get_cm_event}). */
    static CmEvent decode(MemorySegment event) {
        MemorySegment e = event.reinterpret(RdmaCmEvent.LAYOUT.byteSize());
        RdmaCmEventType type = RdmaCmEventType.of(RdmaCmEvent.EVENT.get(e));
        MemorySegment id = RdmaCmEvent.ID.get(e);
        int ps = id.equals(MemorySegment.NULL) ? 0
                : RdmaCmId.PS.get(id.reinterpret(RdmaCmId.LAYOUT.byteSize()));
        // param.ud is what a UDP id's events carry; the UD side is not decoded yet, see docs/ffm.md.
        Optional<CmConnParam> conn = ps == RdmaCmId.RDMA_PS_UDP || !carriesConnParam(type)
                ? Optional.empty()
                : Optional.of(CmConnParam.decode(e, RdmaCmEvent.PARAM));
        return new CmEvent(event, type, RdmaCmEvent.STATUS.get(e), id, RdmaCmEvent.LISTEN_ID.get(e), conn);
    }

    /** The events whose {@code param.conn} is filled (rdma_get_cm_event(3)); in the others it is zero. */
    private static boolean carriesConnParam(RdmaCmEventType type) {
        return switch (type) {
            case CONNECT_REQUEST, CONNECT_RESPONSE, ESTABLISHED, REJECTED -> true;
            default -> false;
        };
    }
}
