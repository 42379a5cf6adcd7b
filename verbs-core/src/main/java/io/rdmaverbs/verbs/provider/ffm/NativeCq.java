package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.CqHandle;

import org.jspecify.annotations.Nullable;

/**
 * A completion queue, with the two data-path ops of its context ({@code poll_cq},
 * {@code req_notify_cq}) read once at creation.
 */
final class NativeCq extends NativeHandle implements CqHandle {

    static {
        // Loaded (not initialized) with this class: C2 does not inline a method whose signature names a class
        // not loaded yet, and exPoller() sits on every poll and arming. Without this, a process with no extended
        // CQ makes it a call each time (1-2 ns of an 8 ns arming, and the fields around it read again after it).
        NativeCqExPoller.class.getName();
    }

    private final NativeContext context;
    private final int capacity;
    private final @Nullable NativeCompChannel channel;
    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;
    /** The polling functions of an extended CQ ({@code ibv_create_cq_ex}); null for a classic one. */
    private @Nullable NativeCqExPoller exPoller;
    /** What polls hold while in flight; {@code destroyCq} quiesces them first. */
    private final CallGuards calls = new CallGuards();
    /** What {@code ibv_req_notify_cq} holds while in flight: one of {@link #calls}. */
    private final CallGuards.Sole arming = new CallGuards.Sole(this, calls);

    NativeCq(NativeVerbsProvider provider, MemorySegment pointer, NativeContext context, int capacity,
            @Nullable NativeCompChannel channel, MemorySegment pollCq, MemorySegment reqNotifyCq) {
        super(provider, "ibv_cq", pointer);
        this.context = context;
        this.capacity = capacity;
        this.channel = channel;
        this.pollCq = pollCq;
        this.reqNotifyCq = reqNotifyCq;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    NativeContext context() {
        return context;
    }

    @Nullable NativeCompChannel channel() {
        return channel;
    }

    MemorySegment pollCq() {
        return pollCq;
    }

    MemorySegment reqNotifyCq() {
        return reqNotifyCq;
    }

    /** Made extended: its {@code struct ibv_cq_ex} polling functions, read once. Right after the create only. */
    void extend(MemorySegment cqEx) {
        exPoller = new NativeCqExPoller(this, cqEx);
    }

    @Nullable NativeCqExPoller exPoller() {
        return exPoller;
    }

    CallGuards calls() {
        return calls;
    }

    CallGuards.Sole arming() {
        return arming;
    }
}
