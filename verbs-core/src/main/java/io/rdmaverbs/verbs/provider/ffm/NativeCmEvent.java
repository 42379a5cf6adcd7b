package io.rdmaverbs.verbs.provider.ffm;

import io.rdmaverbs.verbs.provider.CmEventHandle;
import io.rdmaverbs.verbs.attr.CmEventType;

import org.jspecify.annotations.Nullable;

/**
 * One event returned by {@code rdma_get_cm_event(3)}, its fields copied out so they stay readable after
 * the acknowledgement; destroyed means acknowledged ({@code rdma_ack_cm_event(3)} frees the C event).
 */
final class NativeCmEvent extends NativeHandle implements CmEventHandle {

    private final CmEvent event;
    private final CmEventType type;
    private final NativeCmId id;
    private final @Nullable NativeCmId listenId;
    private final byte[] privateData;

    NativeCmEvent(NativeVerbsProvider provider, CmEvent event, NativeCmId id, @Nullable NativeCmId listenId) {
        super(provider, "rdma_cm_event", event.event());
        this.event = event;
        // Both enums are enum rdma_cm_event_type in header order.
        this.type = CmEventType.values()[event.type().ordinal()];
        this.id = id;
        this.listenId = listenId;
        this.privateData = event.conn().map(CmConnParam::privateData).orElse(new byte[0]);
    }

    /** The decoded C event, whose {@link CmEvent#event()} is what {@code rdma_ack_cm_event} takes. */
    CmEvent event() {
        return event;
    }

    @Override
    public CmEventType type() {
        return type;
    }

    @Override
    public NativeCmId id() {
        return id;
    }

    @Override
    public @Nullable NativeCmId listenId() {
        return listenId;
    }

    @Override
    public int status() {
        return event.status();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
