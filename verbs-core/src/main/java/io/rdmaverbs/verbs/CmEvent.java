package io.rdmaverbs.verbs;

import java.util.List;
import java.util.Map;

import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.provider.CmEventHandle;
import io.rdmaverbs.verbs.attr.CmEventType;

import org.jspecify.annotations.Nullable;

/**
 * One CM event ({@code struct rdma_cm_event}) that {@link CmEventChannel#awaitEvent} returned, held until
 * {@link #ack()} ({@code rdma_ack_cm_event(3)}): while it is held, {@code rdma_destroy_id} of its id, and of
 * the listening id of a CONNECT_REQUEST, blocks ({@code rdma_get_cm_event(3)}), so the event is a dependent
 * of both and of its channel. Its fields are copies, readable after the acknowledgement.
 */
public final class CmEvent extends VerbsResource {

    final CmEventHandle handle;
    private final CmEventChannel channel;
    private final CmId id;
    private final @Nullable CmId listenId;
    private final CmEventType type;
    private final int status;
    private final byte[] privateData;

    CmEvent(CmEventChannel channel, CmId id, @Nullable CmId listenId, CmEventHandle handle) {
        super(channel.verbs, ResourceKind.CM_EVENT, listenId == null ? List.of(id, channel)
                : List.of(id, listenId, channel), null);
        this.handle = handle;
        this.channel = channel;
        this.id = id;
        this.listenId = listenId;
        this.type = handle.type();
        this.status = handle.status();
        this.privateData = handle.privateData();
    }

    /** The context of its id; null while the id has none. */
    @Override
    public @Nullable DeviceContext context() {
        return id.context();
    }

    public CmEventType type() {
        return type;
    }

    /**
     * {@code event->status}: 0 on success; for REJECTED the transport's reject reason (28, consumer
     * defined, when the peer called {@code rdma_reject}); for errors a negative errno ({@code -ETIMEDOUT}).
     */
    public int status() {
        return status;
    }

    /** A copy of the private data the peer sent, as long as the transport carries it (zero-padded), or empty. */
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * The id the event is about ({@code event->id}; {@link #id()} is the graph's number of the event itself).
     * For a CONNECT_REQUEST, a new id in role {@link CmIdRole#PASSIVE} that the application owns: accept,
     * reject or close it.
     */
    public CmId cmId() {
        return id;
    }

    /** The listening id a CONNECT_REQUEST arrived on; null for every other event. */
    public @Nullable CmId listenId() {
        return listenId;
    }

    public CmEventChannel channel() {
        return channel;
    }

    /** {@code rdma_ack_cm_event(3)}: a strict close. Idempotent. */
    public void ack() {
        close();
    }

    /** Whether {@link #ack()} (or a close) released the event. */
    public boolean isAcknowledged() {
        return isClosed();
    }

    @Override
    Hold holdOn(VerbsResource parent) {
        return new Hold(Cause.UNACKNOWLEDGED_CM_EVENTS, "has " + type.cName() + " (" + ref() + ") not acknowledged");
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("type", type.cName());
        m.put("status", status);
        m.put("id", id.name());
        if (listenId != null) {
            m.put("listenId", listenId.name());
        }
        return m;
    }

    @Override
    void release() {
        channel.cm.ackEvent(handle);
        channel.forget(this);
    }
}
