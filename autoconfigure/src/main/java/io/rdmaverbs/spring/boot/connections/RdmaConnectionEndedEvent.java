package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * A connection a listener accepted ended by itself (the other side disconnected, or a work request
 * completed in error); the listener releases it once this is published.
 */
public final class RdmaConnectionEndedEvent extends RdmaConnectionLostEvent {

    RdmaConnectionEndedEvent(RdmaListener listener, InetSocketAddress remoteAddress, RdmaSession session,
            String reason, List<String> failedCompletions) {
        super(listener, listener.name(), remoteAddress, session, reason, failedCompletions);
    }
}
