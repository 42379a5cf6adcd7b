package io.rdmaverbs.spring.boot.connections;

import io.rdmaverbs.verbs.error.VerbsException;

import org.jspecify.annotations.Nullable;

/**
 * A declared listener could not start listening at startup: {@code rdma_bind_addr(3)} or
 * {@code rdma_listen(3)} failed, usually with EADDRINUSE (the port is taken on that address) or
 * EADDRNOTAVAIL (no RDMA device of this host has the address). The listeners started before it are
 * stopped again before this is thrown.
 */
public final class ListenerBindException extends RuntimeException {

    private final String listener;
    private final String address;
    private final @Nullable String portHolder;

    ListenerBindException(String listener, String address, @Nullable String portHolder, VerbsException cause) {
        super("RDMA listener '" + listener + "' could not listen on " + address + ": " + cause.getMessage(), cause);
        this.listener = listener;
        this.address = address;
        this.portHolder = portHolder;
    }

    /** The listener's name, its key under {@code rdma.verbs.connections.listeners}. */
    public String listener() {
        return listener;
    }

    /** The address and port it was to listen on. */
    public String address() {
        return address;
    }

    /** Another listener of this application already listening on that address and port, if one is. */
    public @Nullable String portHolder() {
        return portHolder;
    }

    /** The failed verb, with its errno. */
    public VerbsException verbFailure() {
        return (VerbsException) getCause();
    }
}
