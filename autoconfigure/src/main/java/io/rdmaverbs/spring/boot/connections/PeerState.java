package io.rdmaverbs.spring.boot.connections;

/** Where a {@link RdmaPeer} is in its life. */
public enum PeerState {
    /** Not started yet: the application context is still refreshing. */
    NEW,
    /** A connect attempt is under way (address and route resolution, the handshake). */
    CONNECTING,
    /** Connected: messages can be sent. */
    CONNECTED,
    /** Not connected: the connection was lost, or an attempt failed; the next attempt waits for its backoff. */
    DOWN,
    /** Stopped for good: the context is closing, or the reconnect attempts were used up. */
    STOPPED
}
