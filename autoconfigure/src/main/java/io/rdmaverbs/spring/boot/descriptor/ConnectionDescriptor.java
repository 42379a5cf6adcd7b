package io.rdmaverbs.spring.boot.descriptor;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Function;

import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionListener;
import io.rdmaverbs.verbs.connection.Session;

import org.jspecify.annotations.Nullable;

/**
 * A connection, or a listener, of a connection manager ({@code io.rdmaverbs.verbs.connection}), for JSON:
 * its CM id, where it is, the graph resources it owns and what holds them.
 *
 * @param cmId the name of its CM id
 * @param role {@code listener} or {@code connection}
 * @param state LISTENING, or the connection's state (CONNECTED, DISCONNECTED...)
 * @param localAddress its local address and port
 * @param peerAddress the other side's address and port (none for a listener)
 * @param pendingRequests connection requests neither accepted nor rejected (a listener's)
 * @param resources the graph resources it owns, in creation order
 * @param stuckReferences every release among them that would fail, hang or leak if attempted now
 * @param exports the memory this side exported to the peer (a messaging connection's)
 * @param remoteRegions the handles this side holds on memory the peer exported
 */
public record ConnectionDescriptor(String cmId, String role, String state, @Nullable String localAddress,
        @Nullable String peerAddress, int pendingRequests, List<ResourceRef> resources,
        List<StuckReferenceDescriptor> stuckReferences, List<RemoteExportDescriptor> exports,
        List<RemoteRegionDescriptor> remoteRegions) {

    public static ConnectionDescriptor of(Connection c, Function<Lease, LeaseDescriptor> leases) {
        List<VerbsResource> owned = c.resources();
        Session s = c.isMessaging() ? c.session() : null;
        return new ConnectionDescriptor(c.cmId().name(), "connection", c.state().name(), format(c.localAddress()),
                format(c.peerAddress()), 0, owned.stream().map(VerbsResource::ref).toList(), stuck(owned, leases),
                s == null ? List.of() : s.exports().stream().map(RemoteExportDescriptor::of).toList(),
                s == null ? List.of() : s.remoteRegions().stream().map(RemoteRegionDescriptor::of).toList());
    }

    public static ConnectionDescriptor of(ConnectionListener l, Function<Lease, LeaseDescriptor> leases) {
        List<VerbsResource> owned = List.of(l.cmId());
        return new ConnectionDescriptor(l.cmId().name(), "listener", "LISTENING", format(l.address()), null,
                l.pendingRequests().size(), owned.stream().map(VerbsResource::ref).toList(), stuck(owned, leases),
                List.of(), List.of());
    }

    private static List<StuckReferenceDescriptor> stuck(List<VerbsResource> owned,
            Function<Lease, LeaseDescriptor> leases) {
        return owned.stream().filter(r -> !r.isClosed()).flatMap(r -> r.stuckReferences().stream())
                .map(s -> StuckReferenceDescriptor.of(s, leases)).toList();
    }

    private static @Nullable String format(@Nullable InetSocketAddress address) {
        if (address == null) {
            return null;
        }
        String host = address.getAddress() == null ? address.getHostString() : address.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
