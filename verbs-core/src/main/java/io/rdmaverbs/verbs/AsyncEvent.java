package io.rdmaverbs.verbs;

import java.time.Instant;

import io.rdmaverbs.verbs.attr.AsyncEventType;

import org.jspecify.annotations.Nullable;

/**
 * An asynchronous event of a device ({@code ibv_get_async_event}), already acknowledged.
 *
 * @param type the event type
 * @param context the device context it was read from
 * @param port the port, for port events; else 0
 * @param element the QP, CQ or SRQ it is about, when the graph knows it
 * @param at when it was read
 */
public record AsyncEvent(AsyncEventType type, ResourceRef context, int port, @Nullable ResourceRef element,
        Instant at) {

    @Override
    public String toString() {
        String about = element != null ? " on " + element : port > 0 ? " on port " + port : "";
        return type + about + " (" + context.device() + ")";
    }
}
