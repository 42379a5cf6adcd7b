/**
 * Micrometer metrics of the resource graph, and the Resilience4j metrics of the retry and circuit
 * breakers.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
