package io.rdmaverbs.spring.boot.resilience;

import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * What each connect attempt of a peer runs through besides its retry: the peer's circuit breaker
 * ({@link PeerCircuitBreakers}), or {@link #NONE} when resilience4j-circuitbreaker is not on the class path.
 */
public interface AttemptGuard {

    /** Lets every attempt through. */
    AttemptGuard NONE = new AttemptGuard() {

        @Override
        public <T> T call(Callable<T> attempt) throws Exception {
            return attempt.call();
        }

        @Override
        public Optional<String> state() {
            return Optional.empty();
        }
    };

    /** Runs the attempt, or refuses it at once (the breaker is open). */
    <T> T call(Callable<T> attempt) throws Exception;

    /** The breaker's state (CLOSED, OPEN, HALF_OPEN...), empty without a breaker. */
    Optional<String> state();
}
