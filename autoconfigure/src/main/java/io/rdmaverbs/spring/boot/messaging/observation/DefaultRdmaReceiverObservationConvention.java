package io.rdmaverbs.spring.boot.messaging.observation;

import io.micrometer.common.KeyValues;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaMessagingObservation.ReceiverKeys;

/**
 * {@code rdma.messaging.handle}, tagged with the listener, the route, the kind (request or one-way message),
 * the outcome and the exception's simple name; the payload size is the one high-cardinality value.
 */
public class DefaultRdmaReceiverObservationConvention implements RdmaReceiverObservationConvention {

    public static final DefaultRdmaReceiverObservationConvention INSTANCE =
            new DefaultRdmaReceiverObservationConvention();

    @Override
    public String getName() {
        return RdmaMessagingObservation.HANDLE.getName();
    }

    @Override
    public String getContextualName(RdmaReceiverContext context) {
        return context.listener() + " handle" + (context.route().isEmpty() ? "" : " " + context.route());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(RdmaReceiverContext context) {
        return KeyValues.of(ReceiverKeys.LISTENER.withValue(context.listener()),
                ReceiverKeys.ROUTE.withValue(context.route().isEmpty() ? "none" : context.route()),
                ReceiverKeys.KIND.withValue(context.isRequest() ? "request" : "message"),
                ReceiverKeys.OUTCOME.withValue(context.outcome().name()),
                ReceiverKeys.EXCEPTION.withValue(context.getError() == null ? "none"
                        : context.getError().getClass().getSimpleName()));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(RdmaReceiverContext context) {
        return KeyValues.of("rdma.message.size", Long.toString(context.size()));
    }
}
