package io.rdmaverbs.spring.boot.autoconfigure.health;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.autoconfigure.Traffic;
import io.rdmaverbs.spring.boot.descriptor.StuckReferenceDescriptor;
import io.rdmaverbs.spring.boot.health.DeviceHealthIndicator;
import io.rdmaverbs.spring.boot.leaks.SuspectedLeak;
import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

class DeviceHealthIndicatorTests {

    @Test
    void aFailingCheckIsDownWithItsReasonInsteadOfAnException() {
        try (Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")))) {
            DeviceContext context = verbs.openDevice("rxe0");
            Health health = new DeviceHealthIndicator(verbs, context, 1, new DeviceHealthIndicator.DeviceState() {

                @Override
                public Optional<AsyncEvent> fatalEvent(DeviceContext c) {
                    throw new IllegalStateException("the fault record is unavailable");
                }

                @Override
                public Optional<String> circuitBreaker(DeviceContext c) {
                    return Optional.empty();
                }

                @Override
                public List<SuspectedLeak> suspectedLeaks(List<VerbsResource> resources) {
                    return List.of();
                }
            }).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails().get("error")).asString().contains("the fault record is unavailable");
        }
    }

    @Test
    void aPortThatIsNotActiveIsDownEvenWithALeakSuspected() {
        SimulatedProvider provider = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        try (Verbs verbs = Verbs.using(provider)) {
            DeviceContext context = verbs.openDevice("rxe0");
            provider.setPortState("rxe0", 1, io.rdmaverbs.verbs.attr.PortState.DOWN);
            SuspectedLeak leak = new SuspectedLeak(context.ref(), io.rdmaverbs.verbs.StuckReference.Cause.LEASE,
                    java.time.Instant.EPOCH, java.time.Duration.ofMinutes(1), "main", "me", List.of());
            Health health = new DeviceHealthIndicator(verbs, context, 1, new DeviceHealthIndicator.DeviceState() {

                @Override
                public Optional<AsyncEvent> fatalEvent(DeviceContext c) {
                    return Optional.empty();
                }

                @Override
                public Optional<String> circuitBreaker(DeviceContext c) {
                    return Optional.empty();
                }

                @Override
                public List<SuspectedLeak> suspectedLeaks(List<VerbsResource> resources) {
                    return List.of(leak);
                }
            }).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsEntry("reason", "port 1 is DOWN")
                    .containsEntry("suspectedLeaks", List.of(leak.message()));
        }
    }

    /**
     * The details over a graph with what needs attention (leases, an unacknowledged completion event) among
     * its structure, next to another device: counted by kind, the attention items in graph order, the rest
     * counted; computed here from the graph's own stuck references, independently of how the indicator
     * gathers them.
     */
    @Test
    void detailsCountTheDevicesResourcesListWhatHoldsUpTheTeardownInGraphOrderAndCountTheRest() {
        Contexts.simulated().withPropertyValues(Traffic.DECLARATIONS).run(context -> {
            CompletionQueue cq = Traffic.leaveOneEventUnacknowledged(context);
            Verbs verbs = context.getBean(Verbs.class);
            DeviceContext main = context.getBean("main", DeviceContext.class);
            ProtectionDomain pd = context.getBean("pd0", ProtectionDomain.class);
            DeviceContext other = verbs.openDevice("rxe0", "other");
            try (Arena arena = Arena.ofShared(); Lease onOther = other.allocateProtectionDomain().lease("elsewhere")) {
                List<Lease> leases = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    ProtectionDomain extra = main.allocateProtectionDomain();
                    CompletionQueue extraCq = main.createCompletionQueue(CompletionQueueSpec.of(8));
                    extra.createQueuePair(QueuePairSpec.rc(extraCq, cq, QpCapabilities.of(4, 4)));
                    MemoryRegion mr = extra.registerMemory(arena.allocate(64), EnumSet.of(AccessFlag.LOCAL_WRITE));
                    leases.add(mr.lease("reader-" + i));
                }
                leases.add(pd.lease("writer"));
                leases.add(context.getBean("target", MemoryRegion.class).lease("replicator"));
                Map<String, Object> details = indicator(context, "main").health().getDetails();

                List<VerbsResource> mine = verbs.resources().stream().filter(r -> r.context() == main).toList();
                Map<String, Integer> kinds = new TreeMap<>();
                List<StuckReferenceDescriptor> attention = new ArrayList<>();
                int structural = 0;
                for (VerbsResource r : mine) {
                    kinds.merge(r.kind().name(), 1, Integer::sum);
                    for (StuckReference s : r.stuckReferences()) {
                        if (StuckReferenceDescriptor.holdsUpTheTeardown(s)) {
                            attention.add(StuckReferenceDescriptor.of(s));
                        } else {
                            structural++;
                        }
                    }
                }
                assertThat(details.get("resources")).isEqualTo(kinds);
                assertThat(kinds).containsEntry("QUEUE_PAIR", 5).containsEntry("PROTECTION_DOMAIN", 4)
                        .containsEntry("DEVICE_CONTEXT", 1);
                // How long a lease has been held is the one thing that moves between the two readings.
                assertThat(details.get("stuckReferences")).asInstanceOf(InstanceOfAssertFactories.list(
                        StuckReferenceDescriptor.class)).usingRecursiveFieldByFieldElementComparatorIgnoringFields(
                                "lease.heldForMillis").containsExactlyElementsOf(attention);
                assertThat(attention).extracting(d -> d.lease() == null ? d.cause() : d.lease().holder())
                        .containsExactly("writer", "UNACKNOWLEDGED_CQ_EVENTS", "replicator", "reader-0", "reader-1",
                                "reader-2");
                assertThat(details.get("structuralReferences")).isEqualTo(structural);
                assertThat(structural).isGreaterThan(20);
                leases.forEach(Lease::close);
            } finally {
                cq.acknowledgeEvents(1);
            }
        });
    }

    private static HealthIndicator indicator(org.springframework.context.ApplicationContext context, String device) {
        return (HealthIndicator) context.getBean("rdmaVerbsHealthContributor", CompositeHealthContributor.class)
                .getContributor(device);
    }
}
