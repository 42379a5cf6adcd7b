/**
 * Failure analyzers that turn a failed startup into the property to change.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
