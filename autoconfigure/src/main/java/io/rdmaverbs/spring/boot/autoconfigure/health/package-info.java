/**
 * The {@code rdmaVerbs} health contributor: one indicator per device context.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
