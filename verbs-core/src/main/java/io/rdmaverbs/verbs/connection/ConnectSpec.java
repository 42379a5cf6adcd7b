package io.rdmaverbs.verbs.connection;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.CmConnectionParams;

import org.jspecify.annotations.Nullable;

/**
 * Where a {@link Connection} connects to, and how: address and route resolution each within
 * {@code timeout} ({@code rdma_resolve_addr(3)}, {@code rdma_resolve_route(3)}), the handshake within twice
 * that (the CM's own retries report UNREACHABLE at about the route's timeout), and the private data the
 * peer's handler reads.
 *
 * @param destination the listener's address
 * @param source the local address to bind, or null for the device that reaches the destination
 * @param timeout each resolution's timeout
 * @param connection what the connection is given
 * @param privateData sent with the request (RDMA_PS_TCP: at most 56 bytes, 40 with a session, whose hello
 *        takes 16)
 * @param session the connection's session, or null for a raw connection (the application posts and polls)
 */
public record ConnectSpec(InetSocketAddress destination, @Nullable InetSocketAddress source, Duration timeout,
        ConnectionSpec connection, byte[] privateData, @Nullable SessionSpec session) {

    /** The timeout {@link #to} starts with. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    public ConnectSpec {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(privateData, "privateData");
        requireResolved(destination);
        if (source != null) {
            requireResolved(source);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        int max = CmConnectionParams.MAX_CONNECT_PRIVATE_DATA - (session == null ? 0 : Hello.BYTES);
        if (privateData.length > max) {
            throw new IllegalArgumentException("a connection request carries at most " + max + " bytes of private "
                    + "data (rdma_connect(3), RDMA_PS_TCP" + (session == null ? "" : ", less the session's "
                    + Hello.BYTES + "-byte hello") + "), got " + privateData.length);
        }
        privateData = privateData.clone();
    }

    /**
     * Connecting to {@code destination} with {@link #DEFAULT_TIMEOUT}, {@link ConnectionSpec#rc()}, no private
     * data, and a session of {@link SessionSpec#defaults()}.
     */
    public static ConnectSpec to(InetSocketAddress destination) {
        return new ConnectSpec(destination, null, DEFAULT_TIMEOUT, ConnectionSpec.rc(), new byte[0],
                SessionSpec.defaults());
    }

    public ConnectSpec from(InetSocketAddress localAddress) {
        return new ConnectSpec(destination, localAddress, timeout, connection, privateData, session);
    }

    public ConnectSpec timeout(Duration resolutionTimeout) {
        return new ConnectSpec(destination, source, resolutionTimeout, connection, privateData, session);
    }

    public ConnectSpec connection(ConnectionSpec spec) {
        return new ConnectSpec(destination, source, timeout, spec, privateData, session);
    }

    public ConnectSpec privateData(byte[] data) {
        return new ConnectSpec(destination, source, timeout, connection, data, session);
    }

    /** The connection's session. */
    public ConnectSpec session(SessionSpec spec) {
        return new ConnectSpec(destination, source, timeout, connection, privateData,
                Objects.requireNonNull(spec, "spec"));
    }

    /** No session: a raw connection, whose QP the application posts to and whose CQ it polls. */
    public ConnectSpec raw() {
        return new ConnectSpec(destination, source, timeout, connection, privateData, null);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectSpec c && destination.equals(c.destination) && Objects.equals(source, c.source)
                && timeout.equals(c.timeout) && connection.equals(c.connection) && Arrays.equals(privateData, c.privateData)
                && Objects.equals(session, c.session);
    }

    @Override
    public int hashCode() {
        return Objects.hash(destination, source, timeout, connection, Arrays.hashCode(privateData), session);
    }

    @Override
    public String toString() {
        return "ConnectSpec[destination=" + destination + ", source=" + source + ", timeout=" + timeout
                + ", connection=" + connection + ", privateData=" + privateData.length + " bytes, session="
                + (session == null ? "none (raw)" : session) + "]";
    }

    private static void requireResolved(InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException(address + " is unresolved: the CM takes IP addresses, not host names");
        }
    }
}
