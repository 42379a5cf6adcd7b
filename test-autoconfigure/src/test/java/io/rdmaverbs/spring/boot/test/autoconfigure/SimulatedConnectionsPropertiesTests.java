package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.util.List;
import java.util.Map;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.SimulatedProfile;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The properties {@link SimulatedConnections} sets, and the contexts it shares. */
class SimulatedConnectionsPropertiesTests {

    @Test
    void eachNameIsAListenerOnTheFirstDevicesAddressAndARequiredPeerToItWithPortsInNameOrder() {
        Map<String, Object> properties = SimulatedConnectionsContextCustomizerFactory
                .properties(new String[] { "a", "b" }, "mlx5_0", SimulatedProfile.MLX5);

        assertThat(properties).containsEntry("rdma.verbs.connections.listeners.a.port", 7471)
                .containsEntry("rdma.verbs.connections.peers.b.port", 7472)
                .containsEntry("rdma.verbs.connections.peers.a.required", true)
                .containsEntry("rdma.verbs.connections.listeners.a.device", "");
        assertThat(properties.get("rdma.verbs.connections.listeners.a.address"))
                .isEqualTo(properties.get("rdma.verbs.connections.peers.b.address")).asString().startsWith("fe80:");
    }

    @Test
    void givesNoCustomizerWithoutTheAnnotationAndEqualOnesForEqualNames() {
        SimulatedConnectionsContextCustomizerFactory factory = new SimulatedConnectionsContextCustomizerFactory();
        assertThat(factory.createContextCustomizer(String.class, List.of())).isNull();
        assertThat(factory.createContextCustomizer(Orders.class, List.of()))
                .isEqualTo(factory.createContextCustomizer(SameOrders.class, List.of()))
                .isNotEqualTo(factory.createContextCustomizer(Audit.class, List.of()));
    }

    @SimulatedConnections("orders")
    static class Orders {
    }

    @SimulatedConnections("orders")
    static class SameOrders {
    }

    @SimulatedConnections("audit")
    static class Audit {
    }
}
