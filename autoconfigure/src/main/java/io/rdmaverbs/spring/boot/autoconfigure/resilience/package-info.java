/**
 * Auto-configuration of the device circuit breakers ({@code io.rdmaverbs.spring.boot.resilience}).
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.resilience;

import org.jspecify.annotations.NullMarked;
