package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.PdHandle;

/** A protection domain. Its parent names the device in error messages. */
final class NativePd extends NativeHandle implements PdHandle {

    private final NativeContext context;

    NativePd(NativeVerbsProvider provider, MemorySegment pointer, NativeContext context) {
        super(provider, "ibv_pd", pointer);
        this.context = context;
    }

    NativeContext context() {
        return context;
    }
}
