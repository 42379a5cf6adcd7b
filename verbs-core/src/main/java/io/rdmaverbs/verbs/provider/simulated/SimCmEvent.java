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
    boolean returned;

    SimCmEvent(CmEventType type, SimCmId id, @Nullable SimCmId listenId, int status, byte[] privateData,
            long dueNanos) {
        super(id.provider, id.serial);
        this.type = type;
        this.id = id;
        this.listenId = listenId;
        this.status = status;
        this.privateData = privateData;
        this.dueNanos = dueNanos;
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
