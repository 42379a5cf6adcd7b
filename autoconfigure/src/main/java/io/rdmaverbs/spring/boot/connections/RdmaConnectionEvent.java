package io.rdmaverbs.spring.boot.connections;

import java.net.InetSocketAddress;

import org.springframework.context.ApplicationEvent;

/**
 * An application event of a declared listener or peer: a peer connected or went down, a listener
 * accepted a connection or one it accepted ended. Published on the thread that saw it happen; a slow
 * {@code @EventListener} delays that peer's or listener's next step, nothing else.
 */
public abstract sealed class RdmaConnectionEvent extends ApplicationEvent
        permits RdmaPeerConnectedEvent, RdmaConnectionAcceptedEvent, RdmaConnectionLostEvent {

    private final String name;
    private final InetSocketAddress remoteAddress;

    RdmaConnectionEvent(Object source, String name, InetSocketAddress remoteAddress) {
        super(source);
        this.name = name;
        this.remoteAddress = remoteAddress;
    }

    /** The peer's or listener's name, its key under {@code rdma.verbs.connections}. */
    public String name() {
        return name;
    }

    /** The other side's address. */
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }
}
