/**
 * Observations of the two lifecycle steps of the resource graph worth a trace: opening a declared
 * device and the teardown. {@link io.rdmaverbs.spring.boot.observation.LifecycleObserver} is the hook the
 * library types call, with a no-op default, so they do not need Micrometer; its Micrometer Observation
 * implementation is wired by the auto-configuration when an {@code ObservationRegistry} is present.
 * Nothing here is on the data path.
 */
@NullMarked
package io.rdmaverbs.spring.boot.observation;

import org.jspecify.annotations.NullMarked;
