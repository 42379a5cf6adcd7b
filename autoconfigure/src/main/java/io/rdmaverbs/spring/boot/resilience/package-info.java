/**
 * Resilience4j circuit breakers, one per device context, driven by the device's async events, and the
 * teardown's retry registry; both private to the starter.
 */
@NullMarked
package io.rdmaverbs.spring.boot.resilience;

import org.jspecify.annotations.NullMarked;
