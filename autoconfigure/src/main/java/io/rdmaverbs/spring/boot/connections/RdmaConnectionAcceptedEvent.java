package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;

/** A listener accepted a connection; its messages now go to the listener's handler. */
public final class RdmaConnectionAcceptedEvent extends RdmaConnectionEvent {

    private final RdmaSession session;

    RdmaConnectionAcceptedEvent(RdmaListener listener, InetSocketAddress remoteAddress, RdmaSession session) {
        super(listener, listener.name(), remoteAddress);
        this.session = session;
    }

    /** The accepted connection, to send on. */
    public RdmaSession session() {
        return session;
    }
}
