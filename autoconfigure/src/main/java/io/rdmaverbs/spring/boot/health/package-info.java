/**
 * The {@code rdmaVerbs} health contributor: one indicator per device context. Plain types; the
 * auto-configuration wires them.
 */
@NullMarked
package io.rdmaverbs.spring.boot.health;

import org.jspecify.annotations.NullMarked;
