package io.rdmaverbs.spring.boot.autoconfigure.metrics;

import java.time.Duration;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.autoconfigure.Traffic;
import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class VerbsMetricsTests {

    private final ApplicationContextRunner runner = Contexts.simulated()
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class));

    @Test
    void gaugesCountLiveResourcesByDeviceAndKind() {
        runner.withPropertyValues(Contexts.FULL).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(gauge(registry, "rdma.verbs.resources", "device", "rxe0", "kind", "QUEUE_PAIR")).isEqualTo(1);
            assertThat(gauge(registry, "rdma.verbs.resources", "device", "rxe0", "kind", "COMPLETION_QUEUE"))
                    .isEqualTo(2);
            assertThat(gauge(registry, "rdma.verbs.resources", "device", "rxe0", "kind", "XRC_DOMAIN")).isZero();
            context.getBean("main", io.rdmaverbs.verbs.DeviceContext.class)
                    .createCompletionQueue(CompletionQueueSpec.of(8));
            assertThat(gauge(registry, "rdma.verbs.resources", "device", "rxe0", "kind", "COMPLETION_QUEUE"))
                    .isEqualTo(3);
        });
    }

    @Test
    void everyCounterIsRegisteredAtZeroWithADescriptionBeforeAnyEvent() {
        runner.withPropertyValues(Contexts.FULL).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            for (AsyncEventType type : AsyncEventType.values()) {
                Counter events = registry.get("rdma.verbs.async.events").tags("device", "rxe0", "type", type.name())
                        .counter();
                assertThat(events.count()).isZero();
                assertThat(events.getId().getDescription()).isNotBlank();
            }
            for (ResourceKind kind : ResourceKind.values()) {
                assertThat(registry.get("rdma.verbs.close.refusals").tag("kind", kind.name()).counter().count())
                        .isZero();
                assertThat(registry.get("rdma.verbs.close.failures").tags("kind", kind.name(), "errno", "EBUSY")
                        .counter().getId().getDescription()).isNotBlank();
            }
        });
    }

    @Test
    void stuckReferencesAreCountedByCause() {
        runner.withPropertyValues(Contexts.FULL).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(gauge(registry, "rdma.verbs.stuck.references", "cause", "LEASE")).isZero();
            Lease lease = context.getBean("buf", MemoryRegion.class).lease("metrics test");
            assertThat(gauge(registry, "rdma.verbs.stuck.references", "cause", "LEASE")).isEqualTo(1);
            lease.close();
            assertThat(gauge(registry, "rdma.verbs.stuck.references", "cause", "LEASE")).isZero();
            assertThat(gauge(registry, "rdma.verbs.stuck.references", "cause", "DEPENDENT_RESOURCE")).isPositive();
        });
    }

    @Test
    void unacknowledgedCompletionEventsAreGaugedPerDevice() {
        runner.withPropertyValues(Traffic.DECLARATIONS).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(gauge(registry, "rdma.verbs.cq.unacknowledged.events", "device", "rxe0")).isZero();
            var cq = Traffic.leaveOneEventUnacknowledged(context);
            assertThat(gauge(registry, "rdma.verbs.cq.unacknowledged.events", "device", "rxe0")).isEqualTo(1);
            cq.acknowledgeEvents(1);
            assertThat(gauge(registry, "rdma.verbs.cq.unacknowledged.events", "device", "rxe0")).isZero();
        });
    }

    @Test
    void asyncEventsAndCloseRefusalsAreCounted() {
        runner.withPropertyValues(Contexts.FULL).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            SimulatedProvider provider = (SimulatedProvider) context.getBean(VerbsProvider.class);
            provider.setPortState("rxe0", 1, PortState.DOWN);
            await().atMost(Duration.ofSeconds(5)).until(() -> registry.get("rdma.verbs.async.events")
                    .tags("device", "rxe0", "type", "PORT_ERR").counter().count() > 0);
            assertThat(registry.get("rdma.verbs.async.events").tags("device", "rxe0", "type", "PORT_ERR").counter()
                    .count()).isEqualTo(1);
            assertThatExceptionOfType(CloseRefusedException.class)
                    .isThrownBy(() -> context.getBean("pd0", ProtectionDomain.class).close());
            assertThat(registry.get("rdma.verbs.close.refusals").tag("kind", "PROTECTION_DOMAIN").counter().count())
                    .isEqualTo(1);
        });
    }

    @Test
    void resilience4jMetricsOfTheTeardownRetryAndTheDeviceCircuitBreakersAreBound() {
        runner.withPropertyValues(Contexts.FULL).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("resilience4j.retry.calls").tag("name", "rdma-verbs-teardown").meters())
                    .isNotEmpty();
            assertThat(registry.find("resilience4j.circuitbreaker.state").tag("name", "rdma-verbs-main").meters())
                    .isNotEmpty();
        });
    }

    private static double gauge(MeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }
}
