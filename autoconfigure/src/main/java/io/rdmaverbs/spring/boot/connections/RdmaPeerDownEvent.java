package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * A connected peer lost its connection: the other side disconnected (RDMA_CM_EVENT_DISCONNECTED), a
 * work request completed in error, or a heartbeat failed. The peer is reconnecting when this is published.
 */
public final class RdmaPeerDownEvent extends RdmaConnectionLostEvent {

    RdmaPeerDownEvent(RdmaPeer peer, InetSocketAddress remoteAddress, RdmaSession session, String reason,
            List<String> failedCompletions) {
        super(peer, peer.name(), remoteAddress, session, reason, failedCompletions);
    }
}
