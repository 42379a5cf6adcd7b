package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.provider.CmEventHandle;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.provider.CmIdHandle;

import org.jspecify.annotations.Nullable;

/**
 * One {@code struct rdma_cm_event}: queued on its id's channel until due, then returned by
 * {@code getEvent} and held (it keeps its id, and a CONNECT_REQUEST its listening id, from being
 * destroyed) until acknowledged. Guarded by the {@link SimulatedNetwork}'s lock.
 */
final class SimCmEvent extends SimCmObject implements CmEventHandle {

    private final CmEventType type;
    final SimCmId id;
    final @Nullable SimCmId listenId;
    private final int status;
    private final byte[] privateData;
    final long dueNanos;
    /**
     * For the REP a requester's channel holds until read: what librdmacm's {@code ucma_process_conn_resp}
     * needs when {@code rdma_get_cm_event} reads it (the answering id, its QP number and device, whether
     * this side may issue RDMA READs), and then it sends the RTU; null for every other event.
     */
    final @Nullable Reply reply;
    boolean returned;

    /** A REP's contents as the requester's QP moves need them; taken at the accept, as the REP carries them. */
    record Reply(SimCmId passive, int qpNum, @Nullable SimDevice device, boolean initiator) {
    }

    SimCmEvent(CmEventType type, SimCmId id, @Nullable SimCmId listenId, int status, byte[] privateData,
            long dueNanos) {
        this(type, id, listenId, status, privateData, dueNanos, null);
    }

    SimCmEvent(CmEventType type, SimCmId id, @Nullable SimCmId listenId, int status, byte[] privateData,
            long dueNanos, @Nullable Reply reply) {
        super(id.provider, id.serial);
        this.type = type;
        this.id = id;
        this.listenId = listenId;
        this.status = status;
        this.privateData = privateData;
        this.dueNanos = dueNanos;
        this.reply = reply;
    }

    /** Whether the event was returned and not acknowledged, and is about {@code cmId}. */
    boolean heldFor(SimCmId cmId) {
        return returned && !isGone() && (id == cmId || listenId == cmId);
    }

    @Override
    public CmEventType type() {
        return type;
    }

    @Override
    public CmIdHandle id() {
        return id;
    }

    @Override
    public @Nullable CmIdHandle listenId() {
        return listenId;
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public String describe() {
        return type.cName() + " (status " + status + ") of " + id.describe();
    }
}
