/**
 * The release of the whole resource graph when the application context stops: a graceful,
 * retried phase bounded in time, then the configured policy, and a report of what was closed and left.
 */
@NullMarked
package io.rdmaverbs.spring.boot.teardown;

import org.jspecify.annotations.NullMarked;
