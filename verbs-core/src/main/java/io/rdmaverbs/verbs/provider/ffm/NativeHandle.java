package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.Handle;

/**
 * What every native handle is: the provider that made it, the C object's address, and whether the
 * C object is gone. {@link #markDestroyed()} is called only after the destroy verb succeeded, so a
 * failed destroy leaves the handle usable and the destroy retryable.
 */
abstract sealed class NativeHandle implements Handle
        permits NativeContext, NativePd, NativeXrcd, NativeCompChannel, NativeCq, NativeSrq, NativeQp, NativeMr,
        NativeAh, NativeCmChannel, NativeCmId, NativeCmEvent {

    private final NativeVerbsProvider provider;
    private final MemorySegment pointer;
    private final long address;
    private final String description;
    private volatile boolean destroyed;

    NativeHandle(NativeVerbsProvider provider, String structName, MemorySegment pointer) {
        this.provider = provider;
        this.pointer = pointer;
        this.address = pointer.address();
        this.description = structName + "@0x" + Long.toHexString(pointer.address());
    }

    /** The C object's address as a zero-length segment, as downcalls take it. */
    final MemorySegment pointer() {
        return pointer;
    }

    /** The C object's address, as the data path's downcalls take it ({@link InlineVerbs}); {@link #pointer()} as a long. */
    final long objectAddress() {
        return address;
    }

    final boolean createdBy(NativeVerbsProvider candidate) {
        return provider == candidate;
    }

    final boolean isDestroyed() {
        return destroyed;
    }

    final void markDestroyed() {
        destroyed = true;
    }

    @Override
    public final String describe() {
        return description;
    }

    @Override
    public final String toString() {
        return description;
    }
}
