package io.rdmaverbs.spring.boot.teardown;

import java.time.Duration;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.autoconfigure.Traffic;
import io.rdmaverbs.spring.boot.resources.UnknownDeviceException;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

class TeardownPolicyTests {

    /** How much longer than its timeout a teardown may take: the closes themselves, and a slow CI machine. */
    private static final Duration MARGIN = Duration.ofSeconds(2);

    @Test
    void strictTeardownLeavesALeasedResourceWithItsAncestorsOpenAndReportsTheHolderWithinItsTimeout() {
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues("rdma.verbs.teardown.timeout=300ms")
                .run(context -> {
                    Verbs verbs = context.getBean(Verbs.class);
                    VerbsTeardown teardown = context.getBean(VerbsTeardown.class);
                    Lease lease = context.getBean("buf", MemoryRegion.class).lease("ingest");

                    Duration took = close(context);

                    assertThat(took).isLessThan(Duration.ofMillis(300).plus(MARGIN));
                    TeardownReport report = teardown.report().orElseThrow();
                    assertThat(report.policy()).isEqualTo(TeardownPolicy.STRICT);
                    assertThat(report.drained()).isFalse();
                    assertThat(report.attempts()).isGreaterThan(1);
                    assertThat(report.closed()).extracting(ResourceRef::name)
                            .containsExactly("qp0", "srq0", "cq1", "cq0", "events");
                    assertThat(report.left()).extracting(l -> l.resource().name())
                            .containsExactly("main", "pd0", "buf");
                    TeardownReport.Leftover buf = report.left().get(2);
                    assertThat(buf.stuckReferences()).singleElement().satisfies(s -> {
                        assertThat(s.cause()).isEqualTo(StuckReference.Cause.LEASE);
                        assertThat(s.consequence()).isEqualTo(StuckReference.Consequence.BREAKS_LEASE);
                        assertThat(s.lease()).isSameAs(lease);
                    });
                    assertThat(report.describe()).contains("left open:", "leased by 'ingest'",
                            "at " + TeardownPolicyTests.class.getName());
                    assertThat(lease.isHeld()).isTrue();
                    assertThat(verbs.resources()).extracting(VerbsResource::name).containsExactly("main", "pd0", "buf");
                    lease.close();
                    verbs.close();
                });
    }

    @Test
    void theShutdownPhaseTimeoutBoundsTheTeardownWhenItIsShorterThanTheTeardownTimeout() {
        Contexts.simulated()
                .withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class))
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues("rdma.verbs.teardown.timeout=30s", "rdma.verbs.teardown.policy=cascade",
                        "spring.lifecycle.timeout-per-shutdown-phase=1s")
                .run(context -> {
                    Verbs verbs = context.getBean(Verbs.class);
                    VerbsTeardown teardown = context.getBean(VerbsTeardown.class);
                    Lease lease = context.getBean("buf", MemoryRegion.class).lease("never-released");

                    Duration took = close(context);

                    assertThat(took).as("the close, bounded by the phase's 1 s, not the teardown's 30 s")
                            .isLessThan(Duration.ofSeconds(1).plus(MARGIN));
                    TeardownReport report = teardown.report().orElseThrow();
                    assertThat(report.drained()).isFalse();
                    assertThat(report.isComplete()).as("the cascade's final close fit in the phase").isTrue();
                    assertThat(lease.isRevoked()).isTrue();
                    assertThat(verbs.resources()).isEmpty();
                });
    }

    @Test
    void cascadeTeardownRevokesALeaseThatIsNeverReleasedAndClosesEverythingWithinItsTimeout() {
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues("rdma.verbs.teardown.policy=cascade", "rdma.verbs.teardown.timeout=300ms")
                .run(context -> {
                    Verbs verbs = context.getBean(Verbs.class);
                    SimulatedProvider provider = (SimulatedProvider) context.getBean(VerbsProvider.class);
                    VerbsTeardown teardown = context.getBean(VerbsTeardown.class);
                    Lease lease = context.getBean("buf", MemoryRegion.class).lease("ingest");

                    Duration took = close(context);

                    assertThat(took).isLessThan(Duration.ofMillis(300).plus(MARGIN));
                    TeardownReport report = teardown.report().orElseThrow();
                    assertThat(report.drained()).isFalse();
                    assertThat(report.isComplete()).isTrue();
                    assertThat(report.closed()).extracting(ResourceRef::name)
                            .containsExactlyInAnyOrderElementsOf(Contexts.FULL_RELEASE_ORDER)
                            .containsSubsequence("buf", "pd0", "main");
                    assertThat(lease.isRevoked()).isTrue();
                    assertThat(report.cleared()).singleElement().satisfies(s -> assertThat(s.lease()).isSameAs(lease));
                    assertThat(report.describe()).contains("cleared first (cascade):", "revoked: ");
                    assertThat(verbs.resources()).isEmpty();
                    assertThat(provider.resourceCounts("rxe0").objects()).isZero();
                    assertThat(provider.leakedObjects()).isEmpty();
                });
    }

    @Test
    void aLeaseReleasedByAnotherThreadWithinTheTimeoutDrainsGracefully() {
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues("rdma.verbs.teardown.timeout=5s")
                .run(context -> {
                    VerbsTeardown teardown = context.getBean(VerbsTeardown.class);
                    Lease lease = context.getBean("buf", MemoryRegion.class).lease("ingest");
                    Thread.ofPlatform().name("lease-holder").start(() -> {
                        sleep(Duration.ofMillis(500));
                        lease.close();
                    });

                    Duration took = close(context);

                    assertThat(took).isBetween(Duration.ofMillis(450), Duration.ofSeconds(3));
                    TeardownReport report = teardown.report().orElseThrow();
                    assertThat(report.took()).isGreaterThan(Duration.ofMillis(100));
                    assertThat(report.drained()).isTrue();
                    assertThat(report.isComplete()).isTrue();
                    assertThat(report.attempts()).isGreaterThan(1);
                    assertThat(report.closed()).extracting(ResourceRef::name)
                            .containsExactlyElementsOf(Contexts.FULL_RELEASE_ORDER);
                    assertThat(lease.isRevoked()).isFalse();
                });
    }

    @Test
    void strictTeardownLeavesACompletionQueueWithAnUnacknowledgedEventAndWhatDependsOnIt() {
        Contexts.simulated()
                .withPropertyValues(Traffic.DECLARATIONS)
                .withPropertyValues("rdma.verbs.teardown.timeout=200ms")
                .run(context -> {
                    CompletionQueue cq = Traffic.leaveOneEventUnacknowledged(context);
                    Verbs verbs = context.getBean(Verbs.class);
                    VerbsTeardown teardown = context.getBean(VerbsTeardown.class);

                    Duration took = close(context);

                    assertThat(took).isLessThan(Duration.ofMillis(200).plus(MARGIN));
                    TeardownReport report = teardown.report().orElseThrow();
                    assertThat(report.closed()).extracting(ResourceRef::name)
                            .containsExactlyInAnyOrder("a", "b", "source", "target", "pd0");
                    assertThat(report.left()).extracting(l -> l.resource().name())
                            .containsExactly("main", "events", "cq0");
                    assertThat(report.left().get(2).stuckReferences()).extracting(StuckReference::cause)
                            .containsExactly(StuckReference.Cause.UNACKNOWLEDGED_CQ_EVENTS);
                    assertThat(cq.isOpen()).isTrue();
                    verbs.close();
                });
    }

    @Test
    void cascadeTeardownAcknowledgesOutstandingCompletionEventsAndClosesEverything() {
        Contexts.simulated()
                .withPropertyValues(Traffic.DECLARATIONS)
                .withPropertyValues("rdma.verbs.teardown.policy=cascade", "rdma.verbs.teardown.timeout=200ms")
                .run(context -> {
                    CompletionQueue cq = Traffic.leaveOneEventUnacknowledged(context);
                    SimulatedProvider provider = (SimulatedProvider) context.getBean(VerbsProvider.class);
                    VerbsTeardown teardown = context.getBean(VerbsTeardown.class);

                    close(context);

                    TeardownReport report = teardown.report().orElseThrow();
                    assertThat(report.isComplete()).isTrue();
                    assertThat(report.cleared()).extracting(StuckReference::cause)
                            .containsExactly(StuckReference.Cause.UNACKNOWLEDGED_CQ_EVENTS);
                    assertThat(report.describe()).contains("acknowledged: ");
                    assertThat(cq.isClosed()).isTrue();
                    assertThat(provider.resourceCounts("rxe0").objects()).isZero();
                });
    }

    @Test
    void aContextWhoseRefreshFailsReleasesTheResourcesItHadAlreadyCreated() {
        SimulatedProvider provider = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        Contexts.simulated()
                .withBean(VerbsProvider.class, () -> provider)
                .withPropertyValues(Contexts.FULL)
                // Declared after main: main and everything on it exist when this device fails to open.
                .withPropertyValues("rdma.verbs.devices.other.name=mlx5_9",
                        "rdma.verbs.devices.other.protection-domains=other-pd")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(UnknownDeviceException.class);
                    assertThat(provider.resourceCounts("rxe0").objects()).isZero();
                    assertThat(provider.resourceCounts("rxe0").contexts()).isZero();
                    assertThat(provider.leakedObjects()).isEmpty();
                });
    }

    private static Duration close(AssertableApplicationContext context) {
        long start = System.nanoTime();
        context.close();
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
