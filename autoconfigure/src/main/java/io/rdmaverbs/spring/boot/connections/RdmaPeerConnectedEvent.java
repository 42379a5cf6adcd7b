package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.time.Duration;

import io.rdmaverbs.verbs.connection.Session;

/** A peer is connected: its first connection, or a reconnect. */
public final class RdmaPeerConnectedEvent extends RdmaConnectionEvent {

    private final int attempt;
    private final Duration setup;
    private final Session session;

    RdmaPeerConnectedEvent(RdmaPeer peer, InetSocketAddress remoteAddress, int attempt, Duration setup,
            Session session) {
        super(peer, peer.name(), remoteAddress);
        this.attempt = attempt;
        this.setup = setup;
        this.session = session;
    }

    /** The connection made, to send on. */
    public Session session() {
        return session;
    }

    /** The attempt that connected, counted from 1 since the peer was last connected. */
    public int attempt() {
        return attempt;
    }

    /** How long the successful attempt took, from resolving the address to ESTABLISHED. */
    public Duration setup() {
        return setup;
    }
}
