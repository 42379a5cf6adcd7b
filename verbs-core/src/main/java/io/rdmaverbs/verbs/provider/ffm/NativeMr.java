package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.MrHandle;

/**
 * A registered memory region. Keeps the registered segment reachable: for an automatic arena that
 * stops the memory being freed while the device may still write to it.
 */
final class NativeMr extends NativeHandle implements MrHandle {

    private final NativePd pd;
    private final MemorySegment buffer;
    private final int lkey;
    private final int rkey;
    private final long address;
    private final long length;

    NativeMr(NativeVerbsProvider provider, MemorySegment pointer, NativePd pd, MemorySegment buffer, int lkey,
            int rkey, long address, long length) {
        super(provider, "ibv_mr", pointer);
        this.pd = pd;
        this.buffer = buffer;
        this.lkey = lkey;
        this.rkey = rkey;
        this.address = address;
        this.length = length;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    NativePd pd() {
        return pd;
    }

    MemorySegment buffer() {
        return buffer;
    }
}
