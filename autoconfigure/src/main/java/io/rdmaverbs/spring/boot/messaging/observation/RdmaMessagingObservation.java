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
    SEND {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultRdmaSenderObservationConvention.class;
        }

        @Override
        public String getName() {
            return "rdma.messaging.send";
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return SenderKeys.values();
        }
    },

    /** A request sent through the template, until its reply (or error reply, timeout, the peer's loss). */
    REQUEST {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultRdmaSenderObservationConvention.class;
        }

        @Override
        public String getName() {
            return "rdma.messaging.request";
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return SenderKeys.values();
        }
    },

    /** A message or request handled by an endpoint of a listener, until its reply is handed to the session. */
    HANDLE {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultRdmaReceiverObservationConvention.class;
        }

        @Override
        public String getName() {
            return "rdma.messaging.handle";
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return ReceiverKeys.values();
        }
    };

    /** The tags of {@link #SEND} and {@link #REQUEST}. */
    public enum SenderKeys implements KeyName {

        /** The declared peer's name. */
        PEER {
            @Override
            public String asString() {
                return "rdma.peer";
            }
        },

        /** The route header, {@code none} without one. */
        ROUTE {
            @Override
            public String asString() {
                return "rdma.route";
            }
        },

        /** {@link Outcome}. */
        OUTCOME {
            @Override
            public String asString() {
                return "outcome";
            }
        },

        /** The simple name of the exception, {@code none} without one. */
        EXCEPTION {
            @Override
            public String asString() {
                return "exception";
            }
        }
    }

    /** The tags of {@link #HANDLE}. */
    public enum ReceiverKeys implements KeyName {

        /** The declared listener's name. */
        LISTENER {
            @Override
            public String asString() {
                return "rdma.listener";
            }
        },

        /** The route header, {@code none} without one. */
        ROUTE {
            @Override
            public String asString() {
                return "rdma.route";
            }
        },

        /** {@code request} or {@code message} (one-way). */
        KIND {
            @Override
            public String asString() {
                return "rdma.message.kind";
            }
        },

        /** {@link Outcome}. */
        OUTCOME {
            @Override
            public String asString() {
                return "outcome";
            }
        },

        /** The simple name of the exception, {@code none} without one. */
        EXCEPTION {
            @Override
            public String asString() {
                return "exception";
            }
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
