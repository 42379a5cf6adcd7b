package io.rdmaverbs.spring.boot.autoconfigure.health;

import java.util.List;
import java.util.Optional;

import io.rdmaverbs.spring.boot.health.DeviceHealthIndicator;
import io.rdmaverbs.spring.boot.leaks.SuspectedLeak;
import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
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
}
