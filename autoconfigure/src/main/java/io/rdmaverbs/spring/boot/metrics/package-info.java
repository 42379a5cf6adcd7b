/**
 * Micrometer meters of the resource graph and its events, and of the declared listeners and peers.
 * Plain types; the auto-configuration wires them.
 */
@NullMarked
package io.rdmaverbs.spring.boot.metrics;

import org.jspecify.annotations.NullMarked;
