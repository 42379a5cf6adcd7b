package io.rdmaverbs.spring.boot.resilience;

import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;

/** Makes the {@link AttemptGuard} of each peer: {@link PeerCircuitBreakers}, or none. */
@FunctionalInterface
public interface AttemptGuards {

    /** No breaker: every attempt goes through. */
    AttemptGuards NONE = (name, settings) -> AttemptGuard.NONE;

    AttemptGuard forPeer(String name, ConnectionDeclarations.CircuitBreaker settings);
}
