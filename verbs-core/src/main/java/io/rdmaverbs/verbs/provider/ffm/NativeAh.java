package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.AhHandle;

/** An address handle. Its parent names the device in error messages. */
final class NativeAh extends NativeHandle implements AhHandle {

    private final NativePd pd;

    NativeAh(NativeVerbsProvider provider, MemorySegment pointer, NativePd pd) {
        super(provider, "ibv_ah", pointer);
        this.pd = pd;
    }

    NativePd pd() {
        return pd;
    }
}
