package io.rdmaverbs.spring.boot.connections;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A peer declared {@code required: true} was not connected within its startup bound: the application
 * context does not start without it.
 */
public final class RequiredPeerUnavailableException extends RuntimeException {

    private final String peer;
    private final String address;
    private final Duration waited;
    private final int attempts;

    RequiredPeerUnavailableException(String peer, String address, Duration waited, int attempts,
            @Nullable Throwable lastError) {
        super("RDMA peer '" + peer + "' (" + address + ") was not connected within " + waited + " after " + attempts
                + " attempt(s)" + (lastError == null ? "" : ": " + lastError.getMessage()), lastError);
        this.peer = peer;
        this.address = address;
        this.waited = waited;
        this.attempts = attempts;
    }

    /** The peer's name, its key under {@code rdma.verbs.connections.peers}. */
    public String peer() {
        return peer;
    }

    /** The remote listener's address and port. */
    public String address() {
        return address;
    }

    /** How long the startup waited. */
    public Duration waited() {
        return waited;
    }

    public int attempts() {
        return attempts;
    }
}
