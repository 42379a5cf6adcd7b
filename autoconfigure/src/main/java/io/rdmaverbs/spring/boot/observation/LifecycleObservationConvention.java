package io.rdmaverbs.spring.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observations of lifecycle steps. A bean of this type replaces
 * {@link DefaultLifecycleObservationConvention}, e.g. to rename them or add a tag.
 */
public interface LifecycleObservationConvention extends ObservationConvention<LifecycleObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LifecycleObservationContext;
    }
}
