/**
 * Micrometer meters of the resource graph and its events. Plain types; the auto-configuration wires them.
 */
@NullMarked
package io.rdmaverbs.spring.boot.metrics;

import org.jspecify.annotations.NullMarked;
