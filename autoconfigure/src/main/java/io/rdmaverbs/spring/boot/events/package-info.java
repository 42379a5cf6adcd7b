/**
 * The async events of each device context, read on one thread per context and published as Spring
 * application events. Plain types; the auto-configuration wires them.
 */
@NullMarked
package io.rdmaverbs.spring.boot.events;

import org.jspecify.annotations.NullMarked;
