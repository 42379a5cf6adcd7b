package io.rdmaverbs.spring.boot.messaging.observation;

import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.RequestReplyReceiverContext;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaMessagingObservation.Outcome;
import io.rdmaverbs.verbs.connection.Message;

/**
 * What the listener-side observation sees of a message an endpoint handles: the listener, the route, whether
 * it is a request, and the headers it came with, from which a tracing handler takes the sender's trace
 * context, so that the endpoint's work is a child of the sender's span.
 */
public final class RdmaReceiverContext extends RequestReplyReceiverContext<Map<String, String>, Message> {

    private final String listener;
    private final String route;
    private final boolean request;
    private final long size;
    private volatile Outcome outcome = Outcome.SUCCESS;

    public RdmaReceiverContext(String listener, String route, boolean request, Map<String, String> headers,
            long size) {
        super(Map::get, request ? Kind.SERVER : Kind.CONSUMER);
        this.listener = listener;
        this.route = route;
        this.request = request;
        this.size = size;
        setCarrier(headers);
        setRemoteServiceName("rdma-listener-" + listener);
    }

    public String listener() {
        return listener;
    }

    /** The route, "" for none. */
    public String route() {
        return route;
    }

    public boolean isRequest() {
        return request;
    }

    public long size() {
        return size;
    }

    public Outcome outcome() {
        return outcome;
    }

    public void outcome(Outcome value) {
        outcome = value;
    }
}
