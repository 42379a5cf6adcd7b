package io.rdmaverbs.spring.boot.resilience;

import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;

/**
 * One Resilience4j retry per peer, named {@code rdma-peer-<name>}, in a registry of its own (an
 * application's {@code RetryRegistry} is left alone): the connect attempts with exponential backoff.
 * Its metrics count connect sequences, not attempts: {@code successful_with_retry} once a peer
 * connected after failed attempts, {@code failed_with_retry} once it gave up.
 */
public final class PeerRetries {

    /** The prefix of every retry's name. */
    public static final String NAME_PREFIX = "rdma-peer-";

    private final RetryRegistry registry = RetryRegistry.ofDefaults();

    /** The registry of the peer retries only, e.g. to bind its metrics. */
    public RetryRegistry registry() {
        return registry;
    }

    /** The retry of the peer {@code name}; {@code max-attempts} 0 retries for as long as the peer runs. */
    public Retry forPeer(String name, ConnectionDeclarations.Reconnect settings) {
        return registry.retry(NAME_PREFIX + name, RetryConfig.custom()
                .maxAttempts(settings.maxAttempts() == 0 ? Integer.MAX_VALUE : settings.maxAttempts())
                .intervalFunction(IntervalFunction.ofExponentialBackoff(settings.initialBackoff(),
                        settings.multiplier(), settings.maxBackoff()))
                // A stop interrupts the loop: that ends the sequence instead of starting another attempt.
                .ignoreExceptions(InterruptedException.class)
                .build());
    }
}
