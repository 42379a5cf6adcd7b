package io.rdmaverbs.spring.boot.resilience;

import io.github.resilience4j.retry.RetryRegistry;

/**
 * The Resilience4j registry of the teardown's retry, kept out of the application's reach: a bean of this
 * type, not of {@link RetryRegistry}, so that an application using resilience4j's Spring Boot module (or
 * declaring its own {@code RetryRegistry}) neither replaces it nor is replaced by it.
 */
public final class TeardownRetries {

    private final RetryRegistry registry = RetryRegistry.ofDefaults();

    public RetryRegistry registry() {
        return registry;
    }
}
