package io.rdmaverbs.spring.boot.messaging.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.RequestReplySenderContext;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaMessagingObservation.Outcome;
import io.rdmaverbs.verbs.connection.Message;

import org.jspecify.annotations.Nullable;

/**
 * What the template's observations see of a message it sends: the peer, the route, the outcome, and the
 * headers about to go, where a tracing handler puts the trace context ({@code traceparent}, {@code b3}...)
 * so that the trace crosses the RDMA hop. A request's context gets the reply as its response.
 */
public final class RdmaSenderContext extends RequestReplySenderContext<Map<String, String>, Message> {

    private final String peer;
    private final String route;
    private final boolean request;
    private final long size;
    private volatile Outcome outcome = Outcome.SUCCESS;

    public RdmaSenderContext(String peer, @Nullable String route, boolean request, long size) {
        super((carrier, key, value) -> {
            if (carrier != null) {
                carrier.put(key, value);
            }
        }, request ? Kind.CLIENT : Kind.PRODUCER);
        this.peer = peer;
        this.route = route == null ? "" : route;
        this.request = request;
        this.size = size;
        setCarrier(new LinkedHashMap<>());
        setRemoteServiceName("rdma-peer-" + peer);
    }

    public String peer() {
        return peer;
    }

    /** The route, "" for none. */
    public String route() {
        return route;
    }

    public boolean isRequest() {
        return request;
    }

    /** The payload's length in bytes. */
    public long size() {
        return size;
    }

    public Outcome outcome() {
        return outcome;
    }

    public void outcome(Outcome value) {
        outcome = value;
    }

    /** The headers the observation handlers added (the trace context), to send with the message. */
    public Map<String, String> headers() {
        Map<String, String> carrier = getCarrier();
        return carrier == null ? Map.of() : carrier;
    }
}
