/**
 * The {@code rdmaVerbs} health contributor (one indicator per device context) and the
 * {@code rdmaConnections} one (one entry per declared listener and peer). Plain types; the
 * auto-configuration wires them.
 */
@NullMarked
package io.rdmaverbs.spring.boot.health;

import org.jspecify.annotations.NullMarked;
