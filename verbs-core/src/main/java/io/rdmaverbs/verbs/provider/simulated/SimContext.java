package io.rdmaverbs.verbs.provider.simulated;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;
import io.rdmaverbs.verbs.provider.ContextHandle;

/** An open device context: the objects created through it and its async event queue. */
final class SimContext extends SimHandle implements ContextHandle {

    /**
     * Put in {@link #asyncEvents} (at most once at a time, see {@link #wakePending}) by a wake: the
     * waiter that takes it returns no event. Compared by identity; never handed out.
     */
    static final AsyncEventRecord WAKE = new AsyncEventRecord(AsyncEventType.DEVICE_FATAL, null, 0);

    /** Live objects created in this context; guarded by the device lock. */
    private final Set<SimHandle> children = new LinkedHashSet<>();
    final LinkedBlockingQueue<AsyncEventRecord> asyncEvents = new LinkedBlockingQueue<>();
    /** Whether {@link #WAKE} is in {@link #asyncEvents}: wakes that no waiter saw yet count once, like an eventfd. */
    final AtomicBoolean wakePending = new AtomicBoolean();

    /** Opened by the connection manager ({@code id->verbs}): never to be closed by its users. */
    volatile boolean ownedByConnectionManager;

    SimContext(SimulatedProvider provider, SimDevice device, long id) {
        super(provider, device, KernelObjectKind.CONTEXT, id);
    }

    @Override
    SimContext context() {
        return this;
    }

    @Override
    public DeviceInfo device() {
        return device.profile.info();
    }

    @Override
    public int numCompVectors() {
        return device.profile.attributes().numCompVectors();
    }

    @Override
    public boolean ownedByConnectionManager() {
        return ownedByConnectionManager;
    }

    void adopt(SimHandle child) {
        children.add(child);
    }

    void release(SimHandle child) {
        children.remove(child);
    }

    List<SimHandle> children() {
        return List.copyOf(children);
    }
}
