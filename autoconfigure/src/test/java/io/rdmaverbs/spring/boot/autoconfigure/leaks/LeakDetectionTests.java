package io.rdmaverbs.spring.boot.autoconfigure.leaks;

import java.time.Duration;
import java.util.List;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.autoconfigure.Traffic;
import io.rdmaverbs.spring.boot.health.DeviceHealthIndicator;
import io.rdmaverbs.spring.boot.leaks.LeakDetector;
import io.rdmaverbs.spring.boot.leaks.SuspectedLeak;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@ExtendWith(OutputCaptureExtension.class)
class LeakDetectionTests {

    private static final String THRESHOLD = "rdma.verbs.leak-detection-threshold=200ms";

    @Test
    void isOffByDefault() {
        Contexts.simulated().withPropertyValues(Contexts.FULL).run(context -> {
            assertThat(context).doesNotHaveBean(LeakDetector.class);
            try (Lease lease = context.getBean("buf", MemoryRegion.class).lease("forgetful")) {
                Thread.sleep(50);
                assertThat(health(context).getStatus().getCode()).isEqualTo("UP");
            }
        });
    }

    @Test
    void aLeaseHeldPastTheThresholdIsLoggedOnceWithItsStackAndMarksTheHealth(CapturedOutput output) {
        Contexts.simulated().withPropertyValues(Contexts.FULL).withPropertyValues(THRESHOLD).run(context -> {
            try (Lease lease = context.getBean("buf", MemoryRegion.class).lease("forgetful")) {
                assertThat(health(context).getStatus().getCode()).as("before the threshold").isEqualTo("UP");
                await().atMost(Duration.ofSeconds(5)).until(() -> output.getOut().contains("leak detection triggered"));
                Health health = health(context);
                assertThat(health.getStatus()).isEqualTo(DeviceHealthIndicator.LEAK_SUSPECTED);
                assertThat(health.getDetails().get("suspectedLeaks")).asString().contains("'forgetful'", "buf");
                // The scan runs every 100 ms: a lease is still logged once.
                Thread.sleep(300);
                String log = output.getOut();
                assertThat(log.split("leak detection triggered", -1)).hasSize(2);
                assertThat(log).contains("WARN", "the lease of 'forgetful'", "apparent leak: taken here",
                        LeakDetectionTests.class.getName() + ".lambda$aLeaseHeldPastTheThreshold");
            }
            assertThat(health(context).getStatus().getCode()).as("once released").isEqualTo("UP");
        });
    }

    @Test
    void aCompletionEventLeftUnacknowledgedPastTheThresholdIsReportedWithTheStackThatTookIt(CapturedOutput output) {
        Contexts.simulated().withPropertyValues(Traffic.DECLARATIONS).withPropertyValues(THRESHOLD).run(context -> {
            CompletionQueue cq = Traffic.leaveOneEventUnacknowledged(context);
            LeakDetector detector = context.getBean(LeakDetector.class);
            Verbs verbs = context.getBean(Verbs.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> !detector.suspectedLeaks(verbs.resources()).isEmpty());
            SuspectedLeak leak = detector.suspectedLeaks(verbs.resources()).getFirst();
            assertThat(leak.cause()).isEqualTo(StuckReference.Cause.UNACKNOWLEDGED_CQ_EVENTS);
            assertThat(leak.resource().name()).isEqualTo("cq0");
            assertThat(leak.holder()).isNull();
            assertThat(leak.thread()).isEqualTo(Thread.currentThread().getName());
            assertThat(leak.stack().getFirst().getClassName()).isEqualTo(Traffic.class.getName());
            assertThat(leak.heldFor()).isGreaterThanOrEqualTo(Duration.ofMillis(200));
            assertThat(health(context).getStatus()).isEqualTo(DeviceHealthIndicator.LEAK_SUSPECTED);
            await().atMost(Duration.ofSeconds(5)).until(() -> output.getOut().contains("completion event of cq 'cq0'"));
            cq.acknowledgeEvents(1);
            assertThat(cq.oldestUnacknowledgedEvent()).isEmpty();
            assertThat(detector.suspectedLeaks(verbs.resources())).isEmpty();
            assertThat(health(context).getStatus().getCode()).isEqualTo("UP");
        });
    }

    @Test
    void aHoldShorterThanTheThresholdIsNotALeak() {
        Contexts.simulated().withPropertyValues(Contexts.FULL)
                .withPropertyValues("rdma.verbs.leak-detection-threshold=1h").run(context -> {
                    try (Lease lease = context.getBean("buf", MemoryRegion.class).lease("brief")) {
                        List<SuspectedLeak> leaks = context.getBean(LeakDetector.class).scan();
                        assertThat(leaks).isEmpty();
                    }
                });
    }

    private static Health health(org.springframework.context.ApplicationContext context) {
        CompositeHealthContributor contributor = context.getBean("rdmaVerbsHealthContributor",
                CompositeHealthContributor.class);
        return ((HealthIndicator) contributor.getContributor("main")).health();
    }
}
