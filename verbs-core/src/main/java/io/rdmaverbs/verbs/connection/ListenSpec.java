package io.rdmaverbs.verbs.connection;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Where and how a {@link ConnectionListener} listens ({@code rdma_bind_addr(3)}, {@code rdma_listen(3)}),
 * and what each connection it accepts is given.
 *
 * @param address the local address; port 0 picks a free port ({@link ConnectionListener#address()} says which)
 * @param backlog requests queued before they are read; 0 for the CM's default
 * @param connection what each accepted connection is given
 */
public record ListenSpec(InetSocketAddress address, int backlog, ConnectionSpec connection) {

    public ListenSpec {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(connection, "connection");
        if (address.isUnresolved()) {
            throw new IllegalArgumentException(address + " is unresolved: the CM takes IP addresses, not host names");
        }
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog must be 0 (the CM's default) or more, was " + backlog);
        }
    }

    /** Listening on {@code address} with the CM's default backlog and {@link ConnectionSpec#rc()}. */
    public static ListenSpec on(InetSocketAddress address) {
        return new ListenSpec(address, 0, ConnectionSpec.rc());
    }

    public ListenSpec backlog(int requests) {
        return new ListenSpec(address, requests, connection);
    }

    public ListenSpec connection(ConnectionSpec spec) {
        return new ListenSpec(address, backlog, spec);
    }
}
