/**
 * Leak detection: wiring of the {@code io.rdmaverbs.spring.boot.leaks} types.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.leaks;

import org.jspecify.annotations.NullMarked;
