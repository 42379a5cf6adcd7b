package io.rdmaverbs.spring.boot.resilience;

import java.util.Optional;
import java.util.concurrent.Callable;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;

/**
 * One Resilience4j circuit breaker per peer, named {@code rdma-peer-<name>}, in a registry of its own (as
 * the device breakers are): an application's own {@code CircuitBreakerRegistry} is left alone. Every
 * connect attempt is a call of the breaker; once its failure rate opens it, attempts fail at once with
 * {@code CallNotPermittedException} (the retry keeps its backoff) until the wait in the open state lets a
 * trial attempt through.
 */
public final class PeerCircuitBreakers implements AttemptGuards {

    /** The prefix of every breaker's name. */
    public static final String NAME_PREFIX = "rdma-peer-";

    private final CircuitBreakerRegistry registry = CircuitBreakerRegistry.ofDefaults();

    /** The registry of the peer breakers only, e.g. to bind its metrics. */
    public CircuitBreakerRegistry registry() {
        return registry;
    }

    /** The guard of the peer {@code name}, a breaker configured from its declaration. */
    @Override
    public AttemptGuard forPeer(String name, ConnectionDeclarations.CircuitBreaker settings) {
        CircuitBreaker breaker = registry.circuitBreaker(NAME_PREFIX + name, CircuitBreakerConfig.custom()
                .failureRateThreshold(settings.failureRateThreshold())
                .slidingWindowSize(settings.slidingWindowSize())
                .minimumNumberOfCalls(settings.slidingWindowSize())
                .waitDurationInOpenState(settings.waitDurationInOpenState())
                .automaticTransitionFromOpenToHalfOpenEnabled(true)
                .build());
        return new AttemptGuard() {

            @Override
            public <T> T call(Callable<T> attempt) throws Exception {
                return breaker.executeCallable(attempt);
            }

            @Override
            public Optional<String> state() {
                return Optional.of(breaker.getState().name());
            }
        };
    }
}
