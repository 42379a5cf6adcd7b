package io.rdmaverbs.spring.boot.messaging.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the template's observations; declare a bean of this type to change them. */
public interface RdmaSenderObservationConvention extends ObservationConvention<RdmaSenderContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof RdmaSenderContext;
    }
}
