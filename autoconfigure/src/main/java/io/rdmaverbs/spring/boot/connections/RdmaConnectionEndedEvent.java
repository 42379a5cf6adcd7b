package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;

import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.SessionEnd;

/**
 * A connection a listener accepted ended by itself (the other side disconnected, or a work request
 * completed in error); the listener releases it once this is published.
 */
public final class RdmaConnectionEndedEvent extends RdmaConnectionLostEvent {

    RdmaConnectionEndedEvent(RdmaListener listener, InetSocketAddress remoteAddress, Session session,
            SessionEnd end) {
        super(listener, listener.name(), remoteAddress, session, end);
    }
}
