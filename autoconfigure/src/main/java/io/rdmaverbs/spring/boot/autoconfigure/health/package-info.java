/**
 * Auto-configuration of the {@code rdmaVerbs} health contributor ({@code io.rdmaverbs.spring.boot.health}).
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
