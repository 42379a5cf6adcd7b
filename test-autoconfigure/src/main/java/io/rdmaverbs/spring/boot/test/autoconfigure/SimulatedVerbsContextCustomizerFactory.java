package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Turns {@link SimulatedVerbs} on a test class into properties of highest precedence. Registered in
 * {@code META-INF/spring.factories}, so the annotation works on any Spring test without more setup.
 */
final class SimulatedVerbsContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
            List<ContextConfigurationAttributes> configAttributes) {
        SimulatedVerbs annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass, SimulatedVerbs.class);
        return annotation == null ? null : new Customizer(properties(annotation));
    }

    static Map<String, Object> properties(SimulatedVerbs annotation) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put(VerbsProperties.PREFIX + ".provider", "simulated");
        for (SimulatedVerbs.Device device : annotation.value()) {
            properties.put(VerbsProperties.PREFIX + ".simulated.devices." + device.name() + ".profile",
                    device.profile().name().toLowerCase(Locale.ROOT));
        }
        return properties;
    }

    /** Equal for equal properties, so that test classes with the same devices share a cached context. */
    private record Customizer(Map<String, Object> properties) implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("simulatedVerbs", properties));
        }
    }
}
