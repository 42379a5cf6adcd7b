package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.CmChannelHandle;

/**
 * A CM event channel ({@code struct rdma_event_channel}), its descriptor made non-blocking at creation
 * so waits can time out, and the wake descriptor that ends a wait early (closed once the channel is
 * destroyed).
 */
final class NativeCmChannel extends NativeHandle implements CmChannelHandle {

    private final int fd;
    private final WakeDescriptor wake;

    NativeCmChannel(NativeVerbsProvider provider, MemorySegment pointer, int fd, WakeDescriptor wake) {
        super(provider, "rdma_event_channel", pointer);
        this.fd = fd;
        this.wake = wake;
    }

    @Override
    public int fd() {
        return fd;
    }

    WakeDescriptor wake() {
        return wake;
    }
}
