/**
 * Leak detection in HikariCP's manner: a lease held, or a completion event left unacknowledged, for
 * longer than a threshold is logged once with the stack that took it and marks the device's health.
 */
@NullMarked
package io.rdmaverbs.spring.boot.leaks;

import org.jspecify.annotations.NullMarked;
