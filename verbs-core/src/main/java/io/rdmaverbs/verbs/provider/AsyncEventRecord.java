package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.AsyncEventType;

import org.jspecify.annotations.Nullable;

/**
 * One {@code struct ibv_async_event}, already acknowledged by the provider (so that destroy verbs,
 * which wait for async events to be acked, never block on it).
 *
 * @param element the QP, CQ or SRQ handle the event is about, or {@code null} for port and device events
 * @param port the port number for port events, else 0
 */
public record AsyncEventRecord(AsyncEventType type, @Nullable Handle element, int port) {
}
