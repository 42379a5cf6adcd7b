package io.rdmaverbs.spring.boot.messaging;

/**
 * The message headers the messaging layer reads and writes (UTF-8 keys and values of the session protocol's
 * frames, docs/connections.md "The wire protocol"). Trace context headers ({@code traceparent},
 * {@code b3}...) are the tracer's own.
 */
public final class RdmaMessageHeaders {

    /** The payload's media type ({@code application/json}), so that the receiver picks the same converter. */
    public static final String CONTENT_TYPE = "content-type";

    /** The route that selects the {@link RdmaMessageMapping} method of the listener's endpoints. */
    public static final String ROUTE = "route";

    /** On an error reply: the endpoint that failed, {@code <listener>/<route>}. */
    public static final String ENDPOINT = "error-endpoint";

    /** On an error reply: the endpoint's method, {@code OrderEndpoint#place}. */
    public static final String ENDPOINT_METHOD = "error-endpoint-method";

    /** The error type of a request no endpoint takes. */
    public static final String NO_ENDPOINT = "no-endpoint";

    private RdmaMessageHeaders() {
    }
}
