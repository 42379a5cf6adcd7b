package io.rdmaverbs.spring.boot.autoconfigure.connections;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.connections.RdmaMessageHandler;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedNetwork;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Simulated hosts on one wire: each a {@link SimulatedProvider} with one rxe device on a shared
 * {@link SimulatedNetwork}, as two machines with their own kernel would be. A host outlives the
 * application contexts run on it, so an application can stop and start again on the same host (and
 * address), as a JVM restarted on the same machine.
 */
final class Hosts {

    private final SimulatedNetwork network = SimulatedNetwork.create();

    /** A host whose single device is named {@code device}; device names must differ between hosts. */
    Host host(String device) {
        return new Host(SimulatedProvider.on(network, DeviceProfile.rxe(device)), device);
    }

    record Host(SimulatedProvider provider, String device) {

        /** Its device's link-local address, as a property value. */
        String address() {
            return provider.addresses(device).getFirst().getHostAddress();
        }

        /** Every auto-configuration, the connections' included, on this host's provider. */
        ApplicationContextRunner runner() {
            return Contexts.simulated()
                    .withConfiguration(AutoConfigurations.of(RdmaConnectionsAutoConfiguration.class,
                            MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                            SimpleMetricsExportAutoConfiguration.class))
                    .withBean(VerbsProvider.class, () -> provider);
        }

        /** The listener {@code echo} on this host's device, echoing every message back. */
        ApplicationContextRunner echoListener() {
            return runner().withBean("echo", RdmaMessageHandler.class, Hosts::echo)
                    .withPropertyValues("rdma.verbs.connections.listeners.echo.device=" + device);
        }

        /** The peer {@code echo} to {@code listener}'s address, reconnecting fast. */
        ApplicationContextRunner echoPeer(Host listener) {
            return runner().withPropertyValues("rdma.verbs.connections.peers.echo.address=" + listener.address(),
                    "rdma.verbs.connections.peers.echo.resolve-timeout=500ms",
                    "rdma.verbs.connections.peers.echo.connect-timeout=1s",
                    "rdma.verbs.connections.peers.echo.heartbeat-interval=200ms",
                    "rdma.verbs.connections.peers.echo.reconnect.initial-backoff=20ms",
                    "rdma.verbs.connections.peers.echo.reconnect.max-backoff=100ms",
                    "rdma.verbs.connections.peers.echo.circuit-breaker.wait-duration-in-open-state=200ms");
        }
    }

    /** Answers every request with its own payload, and sends every one-way message back. */
    static RdmaMessageHandler echo() {
        return message -> {
            byte[] payload = message.toByteArray();
            if (message.isRequest()) {
                message.reply(payload);
            } else {
                message.session().send(payload);
            }
        };
    }
}
