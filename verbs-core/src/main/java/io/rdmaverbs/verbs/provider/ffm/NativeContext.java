package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.provider.ContextHandle;

/**
 * An open device: {@code struct ibv_context}, its async event descriptor made non-blocking at open,
 * and the wake descriptor that ends a wait on it early (closed once {@code ibv_close_device} succeeded).
 * An adopted context is one librdmacm opened ({@code id->verbs}, {@code rdma_cm(7)}): librdmacm keeps it
 * open for the life of the process and this provider must never {@code ibv_close_device} it.
 */
final class NativeContext extends NativeHandle implements ContextHandle {

    private final DeviceInfo device;
    private final int numCompVectors;
    private final int asyncFd;
    private final WakeDescriptor wake;
    private final boolean adopted;

    NativeContext(NativeVerbsProvider provider, MemorySegment pointer, DeviceInfo device, int numCompVectors,
            int asyncFd, WakeDescriptor wake) {
        this(provider, pointer, device, numCompVectors, asyncFd, wake, false);
    }

    NativeContext(NativeVerbsProvider provider, MemorySegment pointer, DeviceInfo device, int numCompVectors,
            int asyncFd, WakeDescriptor wake, boolean adopted) {
        super(provider, "ibv_context", pointer);
        this.adopted = adopted;
        this.device = device;
        this.numCompVectors = numCompVectors;
        this.asyncFd = asyncFd;
        this.wake = wake;
    }

    @Override
    public DeviceInfo device() {
        return device;
    }

    @Override
    public int numCompVectors() {
        return numCompVectors;
    }

    @Override
    public boolean ownedByConnectionManager() {
        return adopted;
    }

    int asyncFd() {
        return asyncFd;
    }

    WakeDescriptor wake() {
        return wake;
    }

    String deviceName() {
        return device.name();
    }
}
