package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.SimulatedProfile;
import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedNetwork;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Turns {@link SimulatedConnections} into listener and peer properties of highest precedence (after
 * {@link SimulatedVerbs}' provider and devices) and registers the {@link RdmaEndpointTestHarness}.
 */
final class SimulatedConnectionsContextCustomizerFactory implements ContextCustomizerFactory {

    /** The port of the first name's listener; the next names take the next ports. */
    static final int FIRST_PORT = ConnectionDeclarations.DEFAULT_PORT;

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
            List<ContextConfigurationAttributes> configAttributes) {
        SimulatedConnections connections = TestContextAnnotationUtils.findMergedAnnotation(testClass,
                SimulatedConnections.class);
        if (connections == null) {
            return null;
        }
        SimulatedVerbs verbs = TestContextAnnotationUtils.findMergedAnnotation(testClass, SimulatedVerbs.class);
        SimulatedVerbs.Device device = verbs == null ? null : verbs.value()[0];
        return new Customizer(properties(connections.value(), device == null ? "rxe0" : device.name(),
                device == null ? SimulatedProfile.RXE : device.profile()));
    }

    static Map<String, Object> properties(String[] names, String device, SimulatedProfile profile) {
        String address = address(device, profile);
        Map<String, Object> properties = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            String listener = ConnectionDeclarations.listenerPath(names[i]);
            String peer = ConnectionDeclarations.peerPath(names[i]);
            properties.put(listener + ".address", address);
            properties.put(listener + ".device", "");
            properties.put(listener + ".port", FIRST_PORT + i);
            properties.put(peer + ".address", address);
            properties.put(peer + ".port", FIRST_PORT + i);
            properties.put(peer + ".required", true);
        }
        return properties;
    }

    /**
     * The address the simulated device has on its network: its port 1 GID 0, as the provider of the test
     * context will give it (each context's provider has a network of its own).
     */
    private static String address(String device, SimulatedProfile profile) {
        DeviceProfile model = switch (profile) {
            case RXE -> DeviceProfile.rxe(device);
            case MLX5 -> DeviceProfile.mlx5(device);
            case MLX5_INFINIBAND -> DeviceProfile.mlx5Infiniband(device);
        };
        return SimulatedProvider.on(SimulatedNetwork.create(), model).addresses(device).getFirst().getHostAddress();
    }

    /** Equal for equal properties, so that test classes with the same names share a cached context. */
    private record Customizer(Map<String, Object> properties) implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("simulatedConnections",
                    properties));
            context.getBeanFactory().registerSingleton("rdmaEndpointTestHarness", new RdmaEndpointTestHarness());
        }
    }
}
