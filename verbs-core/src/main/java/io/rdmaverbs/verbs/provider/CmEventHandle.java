package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.CmEventType;
import org.jspecify.annotations.Nullable;

/**
 * One {@code struct rdma_cm_event} returned by {@link ConnectionVerbs#getEvent} and HELD until
 * {@link ConnectionVerbs#ackEvent}: as {@code rdma_get_cm_event(3)} says, {@code rdma_destroy_id} of its
 * id (and, for a CONNECT_REQUEST, of the listening id) blocks until it is acknowledged. Its fields are
 * copies, still readable after the acknowledgement.
 */
public interface CmEventHandle extends Handle {

    CmEventType type();

    /**
     * The id the event is about ({@code event->id}). For a CONNECT_REQUEST it is a NEW id for the
     * request, owned by the application from then on (accept, reject or destroy it).
     */
    CmIdHandle id();

    /** The listening id a CONNECT_REQUEST arrived on ({@code event->listen_id}); {@code null} otherwise. */
    @Nullable CmIdHandle listenId();

    /**
     * {@code event->status}: 0 on success; for REJECTED the transport's reject reason (IB CM 28,
     * "consumer defined", when the peer called {@code rdma_reject}); for errors a negative errno
     * ({@code -ETIMEDOUT} for UNREACHABLE after a timeout, {@code -EADDRNOTAVAIL}...).
     */
    int status();

    /**
     * A copy of the private data ({@code event->param.conn.private_data}), as long as the transport
     * carries it (librdmacm reports the transport's length, padded with zeros), or empty.
     */
    byte[] privateData();
}
