/**
 * Resilience4j circuit breakers, one per device context, driven by the device's async events, and the
 * teardown's retry registry; the declared peers' connect retries and circuit breakers, and the
 * {@link io.rdmaverbs.spring.boot.resilience.AttemptGuard} a peer runs each attempt through. Every
 * registry here is private to the starter.
 */
@NullMarked
package io.rdmaverbs.spring.boot.resilience;

import org.jspecify.annotations.NullMarked;
