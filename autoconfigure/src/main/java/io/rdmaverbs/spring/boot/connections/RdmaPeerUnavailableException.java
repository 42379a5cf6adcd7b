package io.rdmaverbs.spring.boot.connections;

import org.jspecify.annotations.Nullable;

/** A message was sent to a peer that is not connected (or lost its connection before the reply). */
public final class RdmaPeerUnavailableException extends RuntimeException {

    private final String peer;
    private final PeerState state;
    private final @Nullable String lastError;

    RdmaPeerUnavailableException(String peer, PeerState state, @Nullable String lastError, @Nullable Throwable cause) {
        super("RDMA peer '" + peer + "' is not connected (" + state + ")"
                + (cause != null ? ": " + cause.getMessage() : lastError == null ? "" : ": " + lastError), cause);
        this.peer = peer;
        this.state = state;
        this.lastError = lastError;
    }

    public String peer() {
        return peer;
    }

    /** The peer's state when the message was refused. */
    public PeerState state() {
        return state;
    }

    /** Why the peer is not connected, when known. */
    public @Nullable String lastError() {
        return lastError;
    }
}
