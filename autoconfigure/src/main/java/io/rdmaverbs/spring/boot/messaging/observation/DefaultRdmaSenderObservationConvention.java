package io.rdmaverbs.spring.boot.messaging.observation;

import io.micrometer.common.KeyValues;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaMessagingObservation.SenderKeys;

/**
 * {@code rdma.messaging.send} or {@code rdma.messaging.request}, tagged with the peer, the route, the
 * outcome and the exception's simple name; the payload size is the one high-cardinality value.
 */
public class DefaultRdmaSenderObservationConvention implements RdmaSenderObservationConvention {

    /** The convention of one-way sends, {@code rdma.messaging.send}. */
    public static final DefaultRdmaSenderObservationConvention SEND =
            new DefaultRdmaSenderObservationConvention(RdmaMessagingObservation.SEND.getName());

    /** The convention of requests, {@code rdma.messaging.request}. */
    public static final DefaultRdmaSenderObservationConvention REQUEST =
            new DefaultRdmaSenderObservationConvention(RdmaMessagingObservation.REQUEST.getName());

    private final String name;

    protected DefaultRdmaSenderObservationConvention(String name) {
        this.name = name;
    }

    /** {@link #SEND}'s or {@link #REQUEST}'s name: a convention's name is fixed, the context does not choose it. */
    @Override
    public String getName() {
        return name;
    }

    @Override
    public String getContextualName(RdmaSenderContext context) {
        return context.peer() + (context.isRequest() ? " request" : " send")
                + (context.route().isEmpty() ? "" : " " + context.route());
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(RdmaSenderContext context) {
        return KeyValues.of(SenderKeys.PEER.withValue(context.peer()),
                SenderKeys.ROUTE.withValue(context.route().isEmpty() ? "none" : context.route()),
                SenderKeys.OUTCOME.withValue(context.outcome().name()),
                SenderKeys.EXCEPTION.withValue(context.getError() == null ? "none"
                        : context.getError().getClass().getSimpleName()));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(RdmaSenderContext context) {
        return KeyValues.of("rdma.message.size", Long.toString(context.size()));
    }
}
