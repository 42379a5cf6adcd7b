package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;
import java.util.List;

import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.SessionEnd;

/**
 * A connection ended by itself: the other side disconnected (RDMA_CM_EVENT_DISCONNECTED), a work request
 * completed in error, or a heartbeat failed. A peer's is a {@link RdmaPeerDownEvent}, one a listener
 * accepted a {@link RdmaConnectionEndedEvent}; a connection the shutdown disconnects is reported there
 * instead ({@link RdmaConnectionsStoppedEvent}).
 */
public abstract sealed class RdmaConnectionLostEvent extends RdmaConnectionEvent
        permits RdmaPeerDownEvent, RdmaConnectionEndedEvent {

    private final Session session;
    private final SessionEnd end;

    RdmaConnectionLostEvent(Object source, String name, InetSocketAddress remoteAddress, Session session,
            SessionEnd end) {
        super(source, name, remoteAddress);
        this.session = session;
        this.end = end;
    }

    /** The session that ended: its connection's name and addresses; nothing can be sent on it any more. */
    public Session session() {
        return session;
    }

    /** How it ended, as the session reported it. */
    public SessionEnd end() {
        return end;
    }

    /** Why, in a sentence. */
    public String reason() {
        return end.reason();
    }

    /**
     * The work completions that ended in error or were flushed, each as {@code "16 x RECV WR_FLUSH_ERR"}
     * ({@code ibv_wc_status_str(3)} names); empty when none were outstanding.
     */
    public List<String> failedCompletions() {
        return end.failedCompletions();
    }
}
