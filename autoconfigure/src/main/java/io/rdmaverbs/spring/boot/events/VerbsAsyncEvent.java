package io.rdmaverbs.spring.boot.events;

import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.attr.AsyncEventType;

import org.springframework.context.ApplicationEvent;

/**
 * An asynchronous event of a device context ({@code ibv_get_async_event}), as a Spring application
 * event: listen with {@code @EventListener void on(VerbsAsyncEvent event)}. Published on the device's
 * reader thread ({@code rdma-verbs-async-<device>}); the event is already acknowledged.
 */
public final class VerbsAsyncEvent extends ApplicationEvent {

    private final transient AsyncEvent event;

    public VerbsAsyncEvent(AsyncEvent event) {
        super(event);
        this.event = event;
    }

    /** The verbs-core event. */
    public AsyncEvent event() {
        return event;
    }

    public AsyncEventType type() {
        return event.type();
    }

    /** The device context the event was read from. */
    public ResourceRef context() {
        return event.context();
    }

    @Override
    public String toString() {
        return "VerbsAsyncEvent[" + event + "]";
    }
}
