package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.CompChannelHandle;

/**
 * A completion channel, its descriptor made non-blocking at creation so waits can time out, and the
 * wake descriptor that ends a wait early (closed once {@code ibv_destroy_comp_channel} succeeded).
 */
final class NativeCompChannel extends NativeHandle implements CompChannelHandle {

    private final NativeContext context;
    private final int fd;
    private final WakeDescriptor wake;

    NativeCompChannel(NativeVerbsProvider provider, MemorySegment pointer, NativeContext context, int fd,
            WakeDescriptor wake) {
        super(provider, "ibv_comp_channel", pointer);
        this.context = context;
        this.fd = fd;
        this.wake = wake;
    }

    WakeDescriptor wake() {
        return wake;
    }

    @Override
    public int fd() {
        return fd;
    }

    NativeContext context() {
        return context;
    }
}
