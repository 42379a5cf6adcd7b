package io.rdmaverbs.spring.boot.health;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.rdmaverbs.spring.boot.connections.PeerState;
import io.rdmaverbs.spring.boot.connections.RdmaConnectionsFactory;
import io.rdmaverbs.spring.boot.connections.RdmaListener;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code rdmaConnections} health contributor: {@code listener-<name>} per listener (UP while
 * listening: address, port, open connections) and {@code peer-<name>} per peer (state, peerAddress,
 * since, lastError, attempts, breaker).
 *
 * <p>A peer that is not connected is {@link #DEGRADED} when it is optional, DOWN when it is declared
 * {@code required}. DEGRADED is not in Spring Boot's default status order, so it does not lower the
 * aggregate status: an optional peer that is down (and reconnecting) must not make a liveness or
 * readiness probe restart the application or take it out of service, while its entry says what is
 * wrong. Add DEGRADED to {@code management.endpoint.health.status.order} (and a code to
 * {@code .http-mapping}) to make it count.
 */
public final class RdmaConnectionsHealthContributor implements CompositeHealthContributor {

    /** An optional peer is not connected: the application works, without it, and it is reconnecting. */
    public static final Status DEGRADED = new Status("DEGRADED",
            "an optional RDMA peer is not connected; it is reconnecting");

    private final RdmaConnectionsFactory factory;

    public RdmaConnectionsHealthContributor(RdmaConnectionsFactory factory) {
        this.factory = factory;
    }

    @Override
    public @Nullable HealthContributor getContributor(String name) {
        return entries().filter(e -> e.name().equals(name)).findFirst().map(Entry::contributor).orElse(null);
    }

    @Override
    public Stream<Entry> stream() {
        return entries();
    }

    private Stream<Entry> entries() {
        List<Entry> entries = new ArrayList<>();
        factory.listeners().forEach(l -> entries.add(new Entry("listener-" + l.name(), new ListenerHealth(l))));
        factory.peers().forEach(p -> entries.add(new Entry("peer-" + p.name(), new PeerHealth(p))));
        return entries.stream();
    }

    private static final class ListenerHealth extends AbstractHealthIndicator {

        private final RdmaListener listener;

        ListenerHealth(RdmaListener listener) {
            super(e -> "health check of RDMA listener '" + listener.name() + "' failed");
            this.listener = listener;
        }

        @Override
        protected void doHealthCheck(Health.Builder health) {
            var address = listener.address();
            health.withDetail("address", address.getAddress().getHostAddress())
                    .withDetail("port", address.getPort())
                    .withDetail("openConnections", listener.sessions().size());
            if (listener.isListening()) {
                health.up();
            } else {
                health.down().withDetail("reason", "not listening");
            }
        }
    }

    private static final class PeerHealth extends AbstractHealthIndicator {

        private final RdmaPeer peer;

        PeerHealth(RdmaPeer peer) {
            super(e -> "health check of RDMA peer '" + peer.name() + "' failed");
            this.peer = peer;
        }

        @Override
        protected void doHealthCheck(Health.Builder health) {
            PeerState state = peer.state();
            health.withDetail("state", state.name())
                    .withDetail("peerAddress", RdmaPeer.format(peer.remoteAddress()))
                    .withDetail("since", peer.since().toString())
                    .withDetail("attempts", peer.attempts())
                    .withDetail("required", peer.isRequired());
            String error = peer.lastError();
            if (error != null) {
                health.withDetail("lastError", error);
            }
            peer.circuitBreakerState().ifPresent(b -> health.withDetail("breaker", b));
            if (state == PeerState.CONNECTED) {
                health.up();
            } else if (peer.isRequired()) {
                health.down();
            } else {
                health.status(DEGRADED);
            }
        }
    }
}
