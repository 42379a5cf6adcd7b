package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.autoconfigure.connections.RdmaConnectionsAutoConfiguration;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedNetwork;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * One simulated host whose application declares the listener {@code name} on its rxe0 and the peer
 * {@code name} connecting to it (a loopback connection through the simulated connection manager), with the
 * messaging and Jackson auto-configurations: a sender and its endpoints in one context. The peer is
 * required, so a context that started has it connected.
 */
final class Loopback {

    private Loopback() {
    }

    static ApplicationContextRunner of(String name) {
        SimulatedProvider provider = SimulatedProvider.on(SimulatedNetwork.create(), DeviceProfile.rxe("rxe0"));
        String address = provider.addresses("rxe0").getFirst().getHostAddress();
        String listener = "rdma.verbs.connections.listeners." + name;
        String peer = "rdma.verbs.connections.peers." + name;
        return Contexts.simulated()
                .withConfiguration(AutoConfigurations.of(RdmaConnectionsAutoConfiguration.class,
                        RdmaMessagingAutoConfiguration.class, JacksonAutoConfiguration.class))
                .withBean(VerbsProvider.class, () -> provider)
                .withPropertyValues(listener + ".device=rxe0", peer + ".address=" + address, peer + ".required=true",
                        peer + ".resolve-timeout=1s", peer + ".connect-timeout=2s",
                        "spring.lifecycle.timeout-per-shutdown-phase=5s");
    }
}
