package io.rdmaverbs.verbs;

import io.rdmaverbs.verbs.error.VerbsException;

/**
 * Observes the graph: metrics, logs and the Spring application-event bridge are listeners. Called on
 * the thread that made the change; implementations must be quick. What one throws is logged and
 * ignored: the change has happened natively, and neither it nor the other listeners may depend on
 * a listener's success.
 */
public interface VerbsListener {

    default void created(VerbsResource resource) {
    }

    default void closed(VerbsResource resource) {
    }

    /** A release verb failed natively; the resource stays open and the close can be retried. */
    default void closeFailed(VerbsResource resource, VerbsException failure) {
    }

    /** A strict close was refused before any native call. */
    default void closeRefused(VerbsResource resource, CloseRefusedException refusal) {
    }

    default void asyncEvent(AsyncEvent event) {
    }
}
