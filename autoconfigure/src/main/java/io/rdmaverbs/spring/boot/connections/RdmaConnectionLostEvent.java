package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * A connection ended by itself: the other side disconnected (RDMA_CM_EVENT_DISCONNECTED), a work request
 * completed in error, or a heartbeat failed. A peer's is a {@link RdmaPeerDownEvent}, one a listener
 * accepted a {@link RdmaConnectionEndedEvent}; a connection the shutdown disconnects is reported there
 * instead ({@link RdmaConnectionsStoppedEvent}).
 */
public abstract sealed class RdmaConnectionLostEvent extends RdmaConnectionEvent
        permits RdmaPeerDownEvent, RdmaConnectionEndedEvent {

    private final RdmaSession session;
    private final String reason;
    private final List<String> failedCompletions;

    RdmaConnectionLostEvent(Object source, String name, InetSocketAddress remoteAddress, RdmaSession session,
            String reason, List<String> failedCompletions) {
        super(source, name, remoteAddress);
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
