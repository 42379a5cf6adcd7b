package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.CompChannelHandle;

/** A completion channel, its descriptor made non-blocking at creation so waits can time out. */
final class NativeCompChannel extends NativeHandle implements CompChannelHandle {

    private final NativeContext context;
    private final int fd;

    NativeCompChannel(NativeVerbsProvider provider, MemorySegment pointer, NativeContext context, int fd) {
        super(provider, "ibv_comp_channel", pointer);
        this.context = context;
        this.fd = fd;
    }

    @Override
    public int fd() {
        return fd;
    }

    NativeContext context() {
        return context;
    }
}
