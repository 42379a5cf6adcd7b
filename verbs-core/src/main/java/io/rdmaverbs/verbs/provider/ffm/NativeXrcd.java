package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.XrcdHandle;

/** An XRC domain. Its parent names the device in error messages. */
final class NativeXrcd extends NativeHandle implements XrcdHandle {

    private final NativeContext context;

    NativeXrcd(NativeVerbsProvider provider, MemorySegment pointer, NativeContext context) {
        super(provider, "ibv_xrcd", pointer);
        this.context = context;
    }

    NativeContext context() {
        return context;
    }
}
