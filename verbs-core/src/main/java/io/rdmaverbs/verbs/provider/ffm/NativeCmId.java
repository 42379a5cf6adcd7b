package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.provider.CmIdHandle;
import io.rdmaverbs.verbs.attr.CmPortSpace;

import org.jspecify.annotations.Nullable;

/**
 * A CM id ({@code struct rdma_cm_id}), created on a channel or handed out by a CONNECT_REQUEST, with the
 * events returned for it and not yet acknowledged: while there is one, {@code rdma_destroy_id(3)} would
 * block forever, so the provider refuses it.
 */
final class NativeCmId extends NativeHandle implements CmIdHandle {

    private final NativeCmChannel channel;
    private final CmPortSpace portSpace;
    /** Events of this id, or CONNECT_REQUESTs that arrived on it as a listener, returned and not acked. */
    private final Set<NativeCmEvent> held = ConcurrentHashMap.newKeySet();
    /** {@code id->qp} as a handle: set by createQp, cleared by destroyQp. */
    private volatile @Nullable NativeQp qp;

    NativeCmId(NativeVerbsProvider provider, MemorySegment pointer, NativeCmChannel channel, CmPortSpace portSpace) {
        super(provider, "rdma_cm_id", pointer.reinterpret(RdmaCmId.LAYOUT.byteSize()));
        this.channel = channel;
        this.portSpace = portSpace;
    }

    @Override
    public NativeCmChannel channel() {
        return channel;
    }

    @Override
    public CmPortSpace portSpace() {
        return portSpace;
    }

    @Nullable NativeQp qp() {
        return qp;
    }

    void qp(@Nullable NativeQp created) {
        qp = created;
    }

    void hold(NativeCmEvent event) {
        held.add(event);
    }

    void release(NativeCmEvent event) {
        held.remove(event);
    }

    /** The events that would make {@code rdma_destroy_id} block, described; empty when it may be called. */
    List<String> unacknowledged() {
        return held.stream().map(NativeCmEvent::describe).sorted().toList();
    }
}
