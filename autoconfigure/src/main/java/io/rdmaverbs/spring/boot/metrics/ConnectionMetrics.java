package io.rdmaverbs.spring.boot.metrics;

import java.time.Duration;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rdmaverbs.spring.boot.connections.ConnectionObserver;
import io.rdmaverbs.spring.boot.connections.PeerState;
import io.rdmaverbs.spring.boot.connections.RdmaConnectionsFactory;
import io.rdmaverbs.spring.boot.connections.RdmaListener;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Micrometer meters of the declared listeners and peers, each tagged by {@code role} ({@code listener}
 * or {@code peer}) and {@code name}:
 * <ul>
 * <li>{@code rdma.connections.open}: a listener's accepted connections that are open, 1 for a connected peer;</li>
 * <li>{@code rdma.connections.established}, {@code .rejected}, {@code .disconnected}: counters;</li>
 * <li>{@code rdma.connections.reconnects} (peers only): connect attempts after a failed attempt or a lost
 * connection;</li>
 * <li>{@code rdma.connections.setup}: a timer from the attempt's first verb (a listener: the request) to
 * ESTABLISHED.</li>
 * </ul>
 * The peers' Resilience4j retries and circuit breakers have their own standard meters
 * ({@code resilience4j.retry.calls}, {@code resilience4j.circuitbreaker.state}...), bound alongside.
 */
public final class ConnectionMetrics implements ConnectionObserver, SmartInitializingSingleton {

    private final ObjectProvider<RdmaConnectionsFactory> factory;
    private final ObjectProvider<MeterRegistry> registry;

    /**
     * Both are looked up once every singleton exists: the factory needs this observer, and the meter
     * registry must not be created early by it.
     */
    public ConnectionMetrics(ObjectProvider<RdmaConnectionsFactory> factory, ObjectProvider<MeterRegistry> registry) {
        this.factory = factory;
        this.registry = registry;
    }

    /**
     * Registers every meter at zero once the listeners and peers exist, so that a dashboard sees them
     * before anything happened.
     */
    @Override
    public void afterSingletonsInstantiated() {
        factory.ifAvailable(f -> registry.ifAvailable(meters -> bindTo(f, meters)));
    }

    private static void bindTo(RdmaConnectionsFactory factory, MeterRegistry meters) {
        for (RdmaListener listener : factory.listeners()) {
            Gauge.builder("rdma.connections.open", listener, l -> l.sessions().size())
                    .description("Open RDMA connections").tags("role", "listener", "name", listener.name())
                    .register(meters);
            register(meters, "listener", listener.name());
        }
        for (RdmaPeer peer : factory.peers()) {
            Gauge.builder("rdma.connections.open", peer, p -> p.state() == PeerState.CONNECTED ? 1 : 0)
                    .description("Open RDMA connections").tags("role", "peer", "name", peer.name()).register(meters);
            register(meters, "peer", peer.name());
            reconnects(meters, peer.name());
        }
    }

    private static void register(MeterRegistry meters, String role, String name) {
        counter(meters, "established", "RDMA connections established", role, name);
        counter(meters, "rejected", "RDMA connection requests rejected", role, name);
        counter(meters, "disconnected", "Established RDMA connections that ended", role, name);
        setup(meters, role, name);
    }

    @Override
    public void established(String role, String name, Duration setup) {
        registry.ifAvailable(r -> {
            counter(r, "established", "RDMA connections established", role, name).increment();
            setup(r, role, name).record(setup);
        });
    }

    @Override
    public void rejected(String role, String name) {
        registry.ifAvailable(r -> counter(r, "rejected", "RDMA connection requests rejected", role, name).increment());
    }

    @Override
    public void disconnected(String role, String name) {
        registry.ifAvailable(r -> counter(r, "disconnected", "Established RDMA connections that ended", role, name)
                .increment());
    }

    @Override
    public void reconnectAttempt(String name) {
        registry.ifAvailable(r -> reconnects(r, name).increment());
    }

    private static Counter counter(MeterRegistry meters, String what, String description, String role, String name) {
        return Counter.builder("rdma.connections." + what).description(description).baseUnit("connections")
                .tags("role", role, "name", name).register(meters);
    }

    private static Counter reconnects(MeterRegistry meters, String name) {
        return Counter.builder("rdma.connections.reconnects")
                .description("Connect attempts of a peer after a failed attempt or a lost connection")
                .baseUnit("attempts").tags("role", "peer", "name", name).register(meters);
    }

    private static Timer setup(MeterRegistry meters, String role, String name) {
        return Timer.builder("rdma.connections.setup")
                .description("RDMA connection setup: address and route resolution and the handshake")
                .tags("role", role, "name", name).register(meters);
    }
}
