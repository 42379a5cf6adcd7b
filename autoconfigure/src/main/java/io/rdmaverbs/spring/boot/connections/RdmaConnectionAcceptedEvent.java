package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;

import io.rdmaverbs.verbs.connection.Session;

/** A listener accepted a connection; its messages now go to the listener's handler. */
public final class RdmaConnectionAcceptedEvent extends RdmaConnectionEvent {

    private final Session session;

    RdmaConnectionAcceptedEvent(RdmaListener listener, InetSocketAddress remoteAddress, Session session) {
        super(listener, listener.name(), remoteAddress);
        this.session = session;
    }

    /** The accepted connection, to send on. */
    public Session session() {
        return session;
    }
}
