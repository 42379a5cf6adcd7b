package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.failure;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;
import io.rdmaverbs.verbs.provider.AsyncEventVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;

import org.jspecify.annotations.Nullable;

/**
 * The async event verbs of {@link NativeVerbsProvider}: waiting on a context's {@code async_fd},
 * reading one event and handing back a copy that names the caller's handles, and waking the waiters.
 */
final class NativeAsyncEventVerbs implements AsyncEventVerbs {

    private final NativeVerbsProvider provider;
    /* The provider's address -> handle maps, to turn the element of an event back into its handle. */
    private final NativeHandleIndex index;

    NativeAsyncEventVerbs(NativeVerbsProvider provider, NativeHandleIndex index) {
        this.provider = provider;
        this.index = index;
    }

    @Override
    public @Nullable AsyncEventRecord getAsyncEvent(ContextHandle context, long timeoutMillis) {
        NativeContext c = provider.live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        long deadline = EventDescriptors.deadline(timeoutMillis);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollFds = EventDescriptors.pollFds(arena);
            MemorySegment event = arena.allocate(IbvAsyncEvent.LAYOUT);
            while (true) {
                if (!EventDescriptors.awaitReadable(c, c.asyncFd(), c.wake(), pollFds, deadline, state)) {
                    return null;
                }
                if (Libibverbs.ibv_get_async_event(state, c.pointer(), event) != 0) {
                    int errno = CallState.errno(state);
                    if (errno == Errno.EAGAIN.number() || errno == Errno.EINTR.number()) {
                        continue;
                    }
                    throw failure("ibv_get_async_event", c, errno, "could not read an async event of "
                            + c.deviceName());
                }
                AsyncEventRecord record;
                try {
                    record = copy(event);
                } finally {
                    // Acked at once: ibv_destroy_qp/cq/srq wait until every async event about their object
                    // is acked, and the caller gets a copy, so holding the native event would only risk a
                    // destroy that never returns.
                    Libibverbs.ibv_ack_async_event(event);
                }
                if (record != null) {
                    return record;
                }
            }
        }
    }

    /** The event with element pointers turned into this provider's handles; null for a type newer than the model. */
    @Override
    public void wakeAsyncEventWaiters(ContextHandle context) {
        NativeContext c = provider.identify(context, NativeContext.class);
        // No liveness check: the wake touches only the descriptor, which is a no-op once closed.
        c.wake().wake();
    }

    private @Nullable AsyncEventRecord copy(MemorySegment event) {
        int value = IbvAsyncEvent.EVENT_TYPE.get(event);
        if (value < 0 || value >= AsyncEventType.values().length) {
            return null;
        }
        AsyncEventType type = AsyncEventType.of(value);
        return switch (type.element()) {
            case CQ -> new AsyncEventRecord(type, index.cqs().get(IbvAsyncEvent.ELEMENT_CQ.get(event).address()), 0);
            case QP -> new AsyncEventRecord(type, index.qps().get(IbvAsyncEvent.ELEMENT_QP.get(event).address()), 0);
            case SRQ -> new AsyncEventRecord(type, index.srqs().get(IbvAsyncEvent.ELEMENT_SRQ.get(event).address()),
                    0);
            case PORT -> new AsyncEventRecord(type, null, IbvAsyncEvent.ELEMENT_PORT_NUM.get(event));
            case WQ, DEVICE -> new AsyncEventRecord(type, null, 0);
        };
    }
}
