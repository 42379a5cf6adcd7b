package io.rdmaverbs.spring.boot.autoconfigure.events;

import java.time.Duration;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.events.DeviceFaults;
import io.rdmaverbs.spring.boot.events.RefuseTrafficOnDeviceFatal;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RefuseTrafficOnDeviceFatalTests {

    private final ApplicationContextRunner runner = Contexts.simulated()
            .withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class))
            .withPropertyValues(Contexts.FULL)
            .withPropertyValues("rdma.verbs.teardown.policy=cascade");

    @Test
    void aDeviceFatalEventMakesTheApplicationRefuseTrafficWhenConfigured() {
        runner.withPropertyValues("rdma.verbs.async-events.refuse-traffic-on-device-fatal=true").run(context -> {
            // SpringApplication publishes it once started; a context runner does not.
            AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
            ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
            assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            ((SimulatedProvider) context.getBean(VerbsProvider.class)).injectDeviceFatal("rxe0");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> availability.getReadinessState() == ReadinessState.REFUSING_TRAFFIC);
        });
    }

    @Test
    void readinessIsLeftAloneByDefault() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(RefuseTrafficOnDeviceFatal.class);
            // SpringApplication publishes it once started; a context runner does not.
            AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
            ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
            DeviceFaults faults = context.getBean(DeviceFaults.class);
            ((SimulatedProvider) context.getBean(VerbsProvider.class)).injectDeviceFatal("rxe0");
            DeviceContext main = context.getBean("main", DeviceContext.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> faults.fatalEvent(main).isPresent());
            assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
        });
    }
}
