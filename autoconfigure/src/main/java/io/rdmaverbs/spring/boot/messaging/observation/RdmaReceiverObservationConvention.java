package io.rdmaverbs.spring.boot.messaging.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the endpoints' observations; declare a bean of this type to change them. */
public interface RdmaReceiverObservationConvention extends ObservationConvention<RdmaReceiverContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof RdmaReceiverContext;
    }
}
