package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.simulated.FaultPlan;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Turns {@link SimulatedVerbs} on a test class into properties of highest precedence, and its
 * {@link InjectFault}s into faults planned on the provider ({@link SimulatedFaults}). Registered in
 * {@code META-INF/spring.factories}, so the annotation works on any Spring test without more setup.
 */
final class SimulatedVerbsContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
            List<ContextConfigurationAttributes> configAttributes) {
        SimulatedVerbs annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass, SimulatedVerbs.class);
        if (annotation == null) {
            return null;
        }
        List<PlannedFault> faults = TestContextAnnotationUtils
                .getMergedRepeatableAnnotations(testClass, InjectFault.class).stream().map(PlannedFault::of).toList();
        return new Customizer(properties(annotation), faults);
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

    /**
     * Equal for equal properties and faults, so that test classes with the same devices and faults share a
     * cached context, and a class with other faults gets one of its own.
     */
    private record Customizer(Map<String, Object> properties, List<PlannedFault> faults) implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("simulatedVerbs", properties));
            SimulatedFaults.planning(plan -> faults.forEach(fault -> fault.planOn(plan))).initialize(context);
        }
    }

    /** One {@link InjectFault}, with its errno looked up, so that a misspelt name fails before the context. */
    record PlannedFault(String verb, int nth, Errno errno, boolean andLater) {

        static PlannedFault of(InjectFault fault) {
            Errno errno = Errno.known().stream().filter(e -> e.name().equals(fault.errno())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("@InjectFault(verb = \"" + fault.verb()
                            + "\") names errno '" + fault.errno() + "', which is none of "
                            + Errno.known().stream().map(Errno::name).toList()));
            return new PlannedFault(fault.verb(), fault.nth(), errno, fault.andLater());
        }

        void planOn(FaultPlan plan) {
            if (andLater) {
                plan.failCallsFrom(verb, nth, errno);
            } else {
                plan.failCall(verb, nth, errno);
            }
        }
    }
}
