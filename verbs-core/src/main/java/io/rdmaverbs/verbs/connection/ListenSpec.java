package io.rdmaverbs.verbs.connection;

import java.net.InetSocketAddress;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Where and how a {@link ConnectionListener} listens ({@code rdma_bind_addr(3)}, {@code rdma_listen(3)}),
 * and what each connection it accepts is given.
 *
 * @param address the local address; port 0 picks a free port ({@link ConnectionListener#address()} says which)
 * @param backlog requests queued before they are read; 0 for the CM's default
 * @param connection what each accepted connection is given
 * @param session each accepted connection's session (its handler takes the messages of all of them), or
 *        null for raw connections
 */
public record ListenSpec(InetSocketAddress address, int backlog, ConnectionSpec connection,
        @Nullable SessionSpec session) {

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

    /**
     * Listening on {@code address} with the CM's default backlog, {@link ConnectionSpec#rc()}, and sessions of
     * {@link SessionSpec#defaults()} (no handler: give one with {@link #session}).
     */
    public static ListenSpec on(InetSocketAddress address) {
        return new ListenSpec(address, 0, ConnectionSpec.rc(), SessionSpec.defaults());
    }

    public ListenSpec backlog(int requests) {
        return new ListenSpec(address, requests, connection, session);
    }

    public ListenSpec connection(ConnectionSpec spec) {
        return new ListenSpec(address, backlog, spec, session);
    }

    /** Each accepted connection's session. */
    public ListenSpec session(SessionSpec spec) {
        return new ListenSpec(address, backlog, connection, Objects.requireNonNull(spec, "spec"));
    }

    /** Raw connections: the application posts to their QPs and polls their CQs. */
    public ListenSpec raw() {
        return new ListenSpec(address, backlog, connection, null);
    }
}
