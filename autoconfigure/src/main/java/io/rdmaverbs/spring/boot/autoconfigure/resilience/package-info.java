/**
 * Resilience4j circuit breakers, one per device context, driven by the device's async events.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.resilience;

import org.jspecify.annotations.NullMarked;
