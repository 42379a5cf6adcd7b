package io.rdmaverbs.spring.boot.messaging;

import java.time.Duration;

/**
 * No reply came within the request's timeout. A reply that still comes is counted and dropped by the session,
 * never handed to another request.
 */
public final class RdmaReplyTimeoutException extends RdmaMessagingException {

    private static final long serialVersionUID = 1L;

    private final String peer;
    private final Duration timeout;

    RdmaReplyTimeoutException(String peer, String route, Duration timeout, Throwable cause) {
        super("RDMA peer '" + peer + "': no reply to " + (route.isEmpty() ? "the request" : "route '" + route + "'")
                + " within " + timeout.toMillis() + " ms", cause);
        this.peer = peer;
        this.timeout = timeout;
    }

    public String peer() {
        return peer;
    }

    public Duration timeout() {
        return timeout;
    }
}
