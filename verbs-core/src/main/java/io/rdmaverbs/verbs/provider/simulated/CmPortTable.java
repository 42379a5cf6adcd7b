package io.rdmaverbs.verbs.provider.simulated;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.CmPortSpace;

import org.jspecify.annotations.Nullable;

/**
 * The RDMA CM's ports of one host ({@code cma_alloc_port}, {@code cma_check_port}): per port space, the
 * ids bound to each port. Two ids may share a port only on two distinct addresses; the wildcard address
 * conflicts with every other. Guarded by the {@link SimulatedNetwork}'s lock.
 */
final class CmPortTable {

    /** {@code net.ipv4.ip_local_port_range}'s default, which the RDMA CM uses too. */
    private static final int FIRST_EPHEMERAL_PORT = 32768;
    private static final int LAST_EPHEMERAL_PORT = 60999;

    private record PortKey(CmPortSpace space, int port) {
    }

    private final Map<PortKey, List<SimCmId>> bound = new HashMap<>();
    private int nextEphemeralPort = FIRST_EPHEMERAL_PORT;

    /** Binds the id to the address's port (port 0: a free ephemeral one) and answers the bound address. */
    InetSocketAddress bind(String verb, SimCmId cmId, InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        int port = address.getPort() == 0 ? ephemeralPort(verb, cmId.portSpace) : address.getPort();
        List<SimCmId> onPort = bound.computeIfAbsent(new PortKey(cmId.portSpace, port), k -> new ArrayList<>());
        for (SimCmId other : onPort) {
            InetAddress taken = Objects.requireNonNull(other.local).getAddress();
            if (ip.isAnyLocalAddress() || taken.isAnyLocalAddress() || sameAddress(taken, ip)) {
                throw new VerbsException(verb, cmId.describe(), Errno.EADDRINUSE, cmId.portSpace + " port " + port
                        + " is already bound on " + taken.getHostAddress() + " by " + other.describe());
            }
        }
        onPort.add(cmId);
        return new InetSocketAddress(ip, port);
    }

    /** Frees the id's port, if it holds one (a request's id shares its listener's and holds none). */
    void release(SimCmId cmId) {
        InetSocketAddress local = cmId.local;
        if (local != null) {
            List<SimCmId> onPort = bound.get(new PortKey(cmId.portSpace, local.getPort()));
            if (onPort != null) {
                onPort.remove(cmId);
            }
        }
    }

    /** The id listening on the address's port, on that address or the wildcard. */
    @Nullable SimCmId listenerFor(CmPortSpace space, InetSocketAddress address) {
        for (SimCmId id : bound.getOrDefault(new PortKey(space, address.getPort()), List.of())) {
            InetAddress at = Objects.requireNonNull(id.local).getAddress();
            if (id.state == SimCmId.State.LISTEN && (at.isAnyLocalAddress() || sameAddress(at, address.getAddress()))) {
                return id;
            }
        }
        return null;
    }

    private int ephemeralPort(String verb, CmPortSpace space) {
        for (int tried = 0; tried <= LAST_EPHEMERAL_PORT - FIRST_EPHEMERAL_PORT; tried++) {
            int port = nextEphemeralPort;
            nextEphemeralPort = port == LAST_EPHEMERAL_PORT ? FIRST_EPHEMERAL_PORT : port + 1;
            List<SimCmId> onPort = bound.get(new PortKey(space, port));
            if (onPort == null || onPort.isEmpty()) {
                return port;
            }
        }
        throw new VerbsException(verb, "port space " + space, Errno.EADDRINUSE, "every ephemeral port ("
                + FIRST_EPHEMERAL_PORT + ".." + LAST_EPHEMERAL_PORT + ") is bound");
    }

    private static boolean sameAddress(InetAddress a, InetAddress b) {
        return SimulatedNetwork.plain(a).equals(SimulatedNetwork.plain(b));
    }
}
