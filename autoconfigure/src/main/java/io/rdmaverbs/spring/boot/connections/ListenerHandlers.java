package io.rdmaverbs.spring.boot.connections;

import java.util.Optional;

import io.rdmaverbs.verbs.connection.MessageHandler;

/**
 * Supplies the handler of a declared listener whose {@code handler} property names no bean: the
 * messaging module's annotated endpoints ({@code @RdmaEndpoint}) bound to it. Asked when the listener
 * starts, once every bean exists, so that every endpoint bean has been post-processed by then.
 */
@FunctionalInterface
public interface ListenerHandlers {

    /** The handler of the listener declared under {@code listener}, empty when nothing here serves it. */
    Optional<MessageHandler> handlerFor(String listener);
}
