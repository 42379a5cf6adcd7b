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
 * @param privateData sent with the request (RDMA_PS_TCP: at most 56 bytes)
 */
public record ConnectSpec(InetSocketAddress destination, @Nullable InetSocketAddress source, Duration timeout,
        ConnectionSpec connection, byte[] privateData) {

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
        if (privateData.length > CmConnectionParams.MAX_CONNECT_PRIVATE_DATA) {
            throw new IllegalArgumentException("a connection request carries at most "
                    + CmConnectionParams.MAX_CONNECT_PRIVATE_DATA + " bytes of private data (rdma_connect(3), "
                    + "RDMA_PS_TCP), got " + privateData.length);
        }
        privateData = privateData.clone();
    }

    /** Connecting to {@code destination} with {@link #DEFAULT_TIMEOUT}, {@link ConnectionSpec#rc()}, no private data. */
    public static ConnectSpec to(InetSocketAddress destination) {
        return new ConnectSpec(destination, null, DEFAULT_TIMEOUT, ConnectionSpec.rc(), new byte[0]);
    }

    public ConnectSpec from(InetSocketAddress localAddress) {
        return new ConnectSpec(destination, localAddress, timeout, connection, privateData);
    }

    public ConnectSpec timeout(Duration resolutionTimeout) {
        return new ConnectSpec(destination, source, resolutionTimeout, connection, privateData);
    }

    public ConnectSpec connection(ConnectionSpec spec) {
        return new ConnectSpec(destination, source, timeout, spec, privateData);
    }

    public ConnectSpec privateData(byte[] data) {
        return new ConnectSpec(destination, source, timeout, connection, data);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectSpec c && destination.equals(c.destination) && Objects.equals(source, c.source)
                && timeout.equals(c.timeout) && connection.equals(c.connection) && Arrays.equals(privateData, c.privateData);
    }

    @Override
    public int hashCode() {
        return Objects.hash(destination, source, timeout, connection, Arrays.hashCode(privateData));
    }

    @Override
    public String toString() {
        return "ConnectSpec[destination=" + destination + ", source=" + source + ", timeout=" + timeout
                + ", connection=" + connection + ", privateData=" + privateData.length + " bytes]";
    }

    private static void requireResolved(InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException(address + " is unresolved: the CM takes IP addresses, not host names");
        }
    }
}
