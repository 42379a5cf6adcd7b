package io.rdmaverbs.spring.boot.connections;

import java.time.Duration;

/**
 * What the listeners and peers report as it happens, for metrics; {@link #NONE} without Micrometer.
 * {@code role} is {@code listener} or {@code peer}, {@code name} the key under
 * {@code rdma.verbs.connections}.
 */
public interface ConnectionObserver {

    /** Observes nothing. */
    ConnectionObserver NONE = new ConnectionObserver() {
    };

    /** A connection was established; {@code setup} from the first verb of the attempt (or the request) to ESTABLISHED. */
    default void established(String role, String name, Duration setup) {
    }

    /** A connection request was rejected by a listener, or a peer's connect was rejected by the other side. */
    default void rejected(String role, String name) {
    }

    /** An established connection ended, by either side. */
    default void disconnected(String role, String name) {
    }

    /** A peer made a connect attempt after a failed one, or after its connection was lost. */
    default void reconnectAttempt(String name) {
    }
}
