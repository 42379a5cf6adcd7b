package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * A connection a listener accepted ended by itself: the other side disconnected
 * (RDMA_CM_EVENT_DISCONNECTED) or a work request completed in error. The listener releases it once
 * this is published; a connection the shutdown disconnects is reported there instead
 * ({@link RdmaConnectionsStoppedEvent}).
 */
public final class RdmaConnectionEndedEvent extends RdmaConnectionEvent {

    private final RdmaSession session;
    private final String reason;
    private final List<String> failedCompletions;

    RdmaConnectionEndedEvent(RdmaListener listener, InetSocketAddress remoteAddress, RdmaSession session,
            String reason, List<String> failedCompletions) {
        super(listener, listener.name(), remoteAddress);
        this.session = session;
        this.reason = reason;
        this.failedCompletions = List.copyOf(failedCompletions);
    }

    /** The connection that ended: its name and addresses; nothing can be sent on it any more. */
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
