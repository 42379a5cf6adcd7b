package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;

import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.SessionEnd;

/**
 * A connected peer lost its connection: the other side disconnected (RDMA_CM_EVENT_DISCONNECTED), a
 * work request completed in error, or a heartbeat failed. The peer is reconnecting when this is published.
 */
public final class RdmaPeerDownEvent extends RdmaConnectionLostEvent {

    RdmaPeerDownEvent(RdmaPeer peer, InetSocketAddress remoteAddress, Session session, SessionEnd end) {
        super(peer, peer.name(), remoteAddress, session, end);
    }
}
