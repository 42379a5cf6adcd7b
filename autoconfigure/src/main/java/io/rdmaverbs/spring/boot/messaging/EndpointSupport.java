package io.rdmaverbs.spring.boot.messaging;

import java.util.List;

import io.micrometer.observation.ObservationRegistry;
import io.rdmaverbs.spring.boot.messaging.converter.RdmaMessageConverters;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaReceiverObservationConvention;

import org.jspecify.annotations.Nullable;

/**
 * What the endpoints of every listener share: the converters of replies, the error handler of one-way
 * messages, the observation registry (and the application's convention, null for the default), and the
 * invocation listeners.
 */
public record EndpointSupport(RdmaMessageConverters converters, RdmaErrorHandler errorHandler,
        ObservationRegistry registry, @Nullable RdmaReceiverObservationConvention convention,
        List<EndpointInvocationListener> invocations) {

    public EndpointSupport {
        invocations = List.copyOf(invocations);
    }
}
