package io.rdmaverbs.spring.boot.connections;

import org.springframework.context.ApplicationEvent;

/**
 * The declared connections' shutdown is over, before the verbs teardown: published on the thread that
 * stopped them, with what it did.
 */
public final class RdmaConnectionsStoppedEvent extends ApplicationEvent {

    private final ConnectionsShutdownReport report;

    RdmaConnectionsStoppedEvent(RdmaConnectionsLifecycle source, ConnectionsShutdownReport report) {
        super(source);
        this.report = report;
    }

    /** What the shutdown stopped, disconnected and released. */
    public ConnectionsShutdownReport report() {
        return report;
    }
}
