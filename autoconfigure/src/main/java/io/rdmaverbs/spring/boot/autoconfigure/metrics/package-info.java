/**
 * Auto-configuration of the graph's Micrometer meters ({@code io.rdmaverbs.spring.boot.metrics}) and the
 * Resilience4j meters of the starter's own retry and circuit breakers.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
