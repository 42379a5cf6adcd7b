/**
 * Wiring of the {@code rdmaVerbs} info contributor.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.info;

import org.jspecify.annotations.NullMarked;
