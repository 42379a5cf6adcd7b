package io.rdmaverbs.spring.boot.autoconfigure.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.observation.DefaultLifecycleObservationConvention;
import io.rdmaverbs.spring.boot.observation.LifecycleObservationContext;
import io.rdmaverbs.spring.boot.observation.LifecycleObservationConvention;
import io.rdmaverbs.spring.boot.observation.LifecycleObserver;
import io.rdmaverbs.spring.boot.resources.DeviceLimitsExceededException;
import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.MemoryRegion;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The opening of declared devices and the teardown are Micrometer observations, tagged with low-cardinality
 * values only, when an {@link ObservationRegistry} is present; without one nothing is observed.
 */
class LifecycleObservationTests {

    private final TestObservationRegistry observations = TestObservationRegistry.create();

    private final ApplicationContextRunner runner = Contexts.simulated()
            .withConfiguration(AutoConfigurations.of(VerbsObservationAutoConfiguration.class))
            .withBean(ObservationRegistry.class, () -> observations);

    @Test
    void openingADeclaredDeviceIsObservedWithItsDeviceProviderAndOutcome() {
        runner.withPropertyValues(Contexts.FULL).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(observations).hasNumberOfObservationsWithNameEqualTo("rdma.verbs.device.open", 1)
                    .hasObservationWithNameEqualTo("rdma.verbs.device.open").that()
                    .hasBeenStarted().hasBeenStopped().doesNotHaveError()
                    .hasContextualNameEqualTo("rdma open rxe0")
                    .hasLowCardinalityKeyValue("rdma.device", "rxe0")
                    .hasLowCardinalityKeyValue("rdma.provider", "simulated")
                    .hasLowCardinalityKeyValue("outcome", "success")
                    .satisfies(c -> {
                        assertThat(c.getLowCardinalityKeyValues().stream().map(KeyValue::getKey))
                                .containsExactlyInAnyOrder("rdma.device", "rdma.provider", "outcome");
                        assertThat(c.getHighCardinalityKeyValues()).isEmpty();
                    });
        });
    }

    @Test
    void aFailedOpenIsObservedWithTheErrorAndTheOutcomeError() {
        // More CQEs than the rxe profile's max_cqe: the open fails on the device's limits.
        runner.withPropertyValues("rdma.verbs.devices.main.name=rxe0",
                "rdma.verbs.devices.main.completion-queues.cq0.entries=1000000").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(observations).hasObservationWithNameEqualTo("rdma.verbs.device.open").that()
                            .hasBeenStopped()
                            .hasLowCardinalityKeyValue("rdma.device", "rxe0")
                            .hasLowCardinalityKeyValue("outcome", "error")
                            .assertThatError().isInstanceOf(DeviceLimitsExceededException.class);
                });
    }

    @Test
    void theTeardownIsObservedWithItsPolicyAndWhetherItReleasedEverything() {
        runner.withPropertyValues(Contexts.FULL).withPropertyValues("rdma.verbs.teardown.policy=cascade")
                .run(context -> context.getBean(VerbsTeardown.class).teardown());
        assertThat(observations).hasNumberOfObservationsWithNameEqualTo("rdma.verbs.teardown", 1)
                .hasObservationWithNameEqualTo("rdma.verbs.teardown").that()
                .hasBeenStopped().doesNotHaveError()
                .hasLowCardinalityKeyValue("rdma.teardown.policy", "cascade")
                .hasLowCardinalityKeyValue("rdma.provider", "simulated")
                .hasLowCardinalityKeyValue("outcome", "complete");
    }

    @Test
    void aStrictTeardownThatLeavesAHeldResourceIsObservedAsIncomplete() {
        runner.withPropertyValues(Contexts.FULL).withPropertyValues("rdma.verbs.teardown.timeout=50ms")
                .run(context -> {
                    Lease lease = context.getBean("buf", MemoryRegion.class).lease("held over the teardown");
                    try {
                        assertThat(context.getBean(VerbsTeardown.class).teardown().isComplete()).isFalse();
                    } finally {
                        lease.close();
                    }
                });
        assertThat(observations).hasObservationWithNameEqualTo("rdma.verbs.teardown").that()
                .hasLowCardinalityKeyValue("rdma.teardown.policy", "strict")
                .hasLowCardinalityKeyValue("outcome", "incomplete");
    }

    @Test
    void aConventionBeanOfTheApplicationTagsTheObservations() {
        LifecycleObservationConvention withSite = new DefaultLifecycleObservationConvention() {
            @Override
            public KeyValues getLowCardinalityKeyValues(LifecycleObservationContext context) {
                return super.getLowCardinalityKeyValues(context).and("site", "rack-7");
            }
        };
        runner.withBean(LifecycleObservationConvention.class, () -> withSite).withPropertyValues(Contexts.FULL)
                .run(context -> assertThat(observations).hasObservationWithNameEqualTo("rdma.verbs.device.open")
                        .that().hasLowCardinalityKeyValue("site", "rack-7")
                        .hasLowCardinalityKeyValue("rdma.device", "rxe0")
                        .hasLowCardinalityKeyValue("outcome", "success"));
    }

    @Test
    void withoutAnObservationRegistryNothingIsObservedAndTheGraphStillStarts() {
        Contexts.simulated().withConfiguration(AutoConfigurations.of(VerbsObservationAutoConfiguration.class))
                .withPropertyValues(Contexts.FULL).run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(LifecycleObserver.class);
                    assertThat(context).hasBean("main");
                });
    }

    @Test
    void withoutMicrometerObservationOnTheClassPathTheGraphStillStarts() {
        runner.withClassLoader(new FilteredClassLoader(ObservationRegistry.class)).withPropertyValues(Contexts.FULL)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LifecycleObserver.class)
                        .hasBean("main"));
    }
}
