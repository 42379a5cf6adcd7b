package io.rdmaverbs.spring.boot.messaging;

import io.rdmaverbs.verbs.connection.RemoteErrorException;

import org.jspecify.annotations.Nullable;

/**
 * The peer answered a request with an error: its endpoint threw, its payload did not convert, or no endpoint
 * takes the route ({@link #errorType()} {@value RdmaMessageHeaders#NO_ENDPOINT}). The message names the
 * peer, the remote endpoint and the cause; the session's {@link RemoteErrorException} is the cause.
 */
public final class RdmaRemoteEndpointException extends RdmaMessagingException {

    private static final long serialVersionUID = 1L;

    private final String peer;
    private final String errorType;
    private final @Nullable String errorMessage;
    private final @Nullable String endpoint;
    private final @Nullable String endpointMethod;

    RdmaRemoteEndpointException(String peer, String route, RemoteErrorException remote) {
        super(message(peer, route, remote), remote);
        this.peer = peer;
        this.errorType = remote.errorType();
        this.errorMessage = remote.errorMessage();
        this.endpoint = remote.headers().get(RdmaMessageHeaders.ENDPOINT);
        this.endpointMethod = remote.headers().get(RdmaMessageHeaders.ENDPOINT_METHOD);
    }

    private static String message(String peer, String route, RemoteErrorException remote) {
        String endpoint = remote.headers().get(RdmaMessageHeaders.ENDPOINT);
        String method = remote.headers().get(RdmaMessageHeaders.ENDPOINT_METHOD);
        String where = endpoint == null ? "the remote handler of " + (route.isEmpty() ? "the request" : "route '"
                + route + "'") : "remote endpoint '" + endpoint + "'" + (method == null ? "" : " (" + method + ")");
        return "RDMA peer '" + peer + "': " + where + " failed: " + remote.errorType()
                + (remote.errorMessage() == null ? "" : ": " + remote.errorMessage());
    }

    public String peer() {
        return peer;
    }

    /** The remote exception's class name, or a code ({@value RdmaMessageHeaders#NO_ENDPOINT}). */
    public String errorType() {
        return errorType;
    }

    public @Nullable String errorMessage() {
        return errorMessage;
    }

    /** The remote endpoint, {@code <listener>/<route>}; null when the peer's handler is no endpoint. */
    public @Nullable String endpoint() {
        return endpoint;
    }

    /** The remote endpoint's method, {@code OrderEndpoint#place}; null when no endpoint took the route. */
    public @Nullable String endpointMethod() {
        return endpointMethod;
    }
}
