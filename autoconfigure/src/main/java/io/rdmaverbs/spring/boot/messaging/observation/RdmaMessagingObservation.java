package io.rdmaverbs.spring.boot.messaging.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of messaging on RDMA connections, as Spring for Apache Kafka documents
 * {@code spring.kafka.template} and {@code spring.kafka.listener}: their names, conventions and tags. Every
 * tag is low-cardinality (declared names, routes, outcomes), so that each makes a bounded set of timers.
 */
public enum RdmaMessagingObservation implements ObservationDocumentation {

    /** A one-way message sent through the template, until the payload may be reused. */
    SEND("rdma.messaging.send", DefaultRdmaSenderObservationConvention.class, SenderKeys.values()),

    /** A request sent through the template, until its reply (or error reply, timeout, the peer's loss). */
    REQUEST("rdma.messaging.request", DefaultRdmaSenderObservationConvention.class, SenderKeys.values()),

    /** A message or request handled by an endpoint of a listener, until its reply is handed to the session. */
    HANDLE("rdma.messaging.handle", DefaultRdmaReceiverObservationConvention.class, ReceiverKeys.values());

    private final String name;
    private final Class<? extends ObservationConvention<? extends Observation.Context>> convention;
    private final KeyName[] keys;

    RdmaMessagingObservation(String name, Class<? extends ObservationConvention<? extends Observation.Context>> convention,
            KeyName[] keys) {
        this.name = name;
        this.convention = convention;
        this.keys = keys;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
        return convention;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
        return keys.clone();
    }

    /** The tags of {@link #SEND} and {@link #REQUEST}. */
    public enum SenderKeys implements KeyName {

        /** The declared peer's name. */
        PEER("rdma.peer"),
        /** The route header, {@code none} without one. */
        ROUTE("rdma.route"),
        /** {@link Outcome}. */
        OUTCOME("outcome"),
        /** The simple name of the exception, {@code none} without one. */
        EXCEPTION("exception");

        private final String key;

        SenderKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }

    /** The tags of {@link #HANDLE}. */
    public enum ReceiverKeys implements KeyName {

        /** The declared listener's name. */
        LISTENER("rdma.listener"),
        /** The route header, {@code none} without one. */
        ROUTE("rdma.route"),
        /** {@code request} or {@code message} (one-way). */
        KIND("rdma.message.kind"),
        /** {@link Outcome}. */
        OUTCOME("outcome"),
        /** The simple name of the exception, {@code none} without one. */
        EXCEPTION("exception");

        private final String key;

        ReceiverKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }

    /** How a send, request or handling ended. */
    public enum Outcome {
        /** Sent, answered, handled. */
        SUCCESS,
        /** This side failed: an endpoint threw, a payload did not convert, a send failed. */
        ERROR,
        /** The peer answered the request with an error. */
        REMOTE_ERROR,
        /** No reply within the request timeout. */
        TIMEOUT,
        /** The peer was not connected, or was lost before the reply. */
        UNAVAILABLE,
        /** No endpoint of the listener takes the route. */
        NO_ENDPOINT
    }
}
