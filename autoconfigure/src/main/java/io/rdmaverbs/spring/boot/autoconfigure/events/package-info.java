/**
 * The async events of each device context, read on one thread per context and published as
 * Spring application events.
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.events;

import org.jspecify.annotations.NullMarked;
