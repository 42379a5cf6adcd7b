package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * A connected peer lost its connection: the other side disconnected (RDMA_CM_EVENT_DISCONNECTED), a
 * work request completed in error, or a heartbeat failed. The peer is reconnecting when this is published.
 */
public final class RdmaPeerDownEvent extends RdmaConnectionEvent {

    private final RdmaSession session;
    private final String reason;
    private final List<String> failedCompletions;

    RdmaPeerDownEvent(RdmaPeer peer, InetSocketAddress remoteAddress, RdmaSession session, String reason,
            List<String> failedCompletions) {
        super(peer, peer.name(), remoteAddress);
        this.session = session;
        this.reason = reason;
        this.failedCompletions = List.copyOf(failedCompletions);
    }

    /** The connection that was lost: its name and addresses; nothing can be sent on it any more. */
    public RdmaSession session() {
        return session;
    }

    /** Why, in a sentence. */
    public String reason() {
        return reason;
    }

    /**
     * The work completions that ended in error or were flushed, each as {@code "SEND WR_FLUSH_ERR"}
     * ({@code ibv_wc_status_str(3)} names); empty when none were outstanding.
     */
    public List<String> failedCompletions() {
        return failedCompletions;
    }
}
