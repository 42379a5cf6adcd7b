/**
 * Auto-configuration of the async-event readers and their listeners ({@code io.rdmaverbs.spring.boot.events}).
 */
@NullMarked
package io.rdmaverbs.spring.boot.autoconfigure.events;

import org.jspecify.annotations.NullMarked;
