package io.rdmaverbs.spring.boot.autoconfigure.events;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.events.AsyncEventReaders;
import io.rdmaverbs.spring.boot.events.VerbsAsyncEvent;
import io.rdmaverbs.spring.boot.resilience.DeviceCircuitBreakers;
import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class AsyncEventsTests {

    @Test
    void portGoingDownArrivesAsAnApplicationEventAndTurnsHealthDownThenUpAgain() {
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withBean(Received.class)
                .run(context -> {
                    SimulatedProvider provider = (SimulatedProvider) context.getBean(VerbsProvider.class);
                    Received received = context.getBean(Received.class);
                    HealthIndicator main = indicator(context.getBean("rdmaVerbsHealthContributor",
                            CompositeHealthContributor.class));
                    assertThat(main.health().getStatus()).isEqualTo(Status.UP);

                    provider.setPortState("rxe0", 1, PortState.DOWN);

                    await().atMost(Duration.ofSeconds(5)).until(() -> !received.events.isEmpty());
                    VerbsAsyncEvent event = received.events.getFirst();
                    assertThat(event.type()).isEqualTo(AsyncEventType.PORT_ERR);
                    assertThat(event.context().name()).isEqualTo("main");
                    assertThat(event.event().port()).isEqualTo(1);
                    assertThat(received.threads).first().asString().isEqualTo("rdma-verbs-async-rxe0");
                    Health down = main.health();
                    assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(down.getDetails()).containsEntry("portState", "DOWN")
                            .containsEntry("reason", "port 1 is DOWN");
                    DeviceCircuitBreakers breakers = context.getBean(DeviceCircuitBreakers.class);
                    assertThat(breakers.forContext("main").getState()).isEqualTo(CircuitBreaker.State.OPEN);

                    provider.setPortState("rxe0", 1, PortState.ACTIVE);

                    await().atMost(Duration.ofSeconds(5)).until(() -> received.events.size() == 2);
                    assertThat(received.events.get(1).type()).isEqualTo(AsyncEventType.PORT_ACTIVE);
                    assertThat(main.health().getStatus()).isEqualTo(Status.UP);
                    assertThat(breakers.forContext("main").getState()).isEqualTo(CircuitBreaker.State.CLOSED);
                });
    }

    @Test
    void deviceFatalForcesTheCircuitBreakerOpenAndTurnsHealthDown() {
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues("rdma.verbs.teardown.policy=cascade")
                .withBean(Received.class)
                .run(context -> {
                    SimulatedProvider provider = (SimulatedProvider) context.getBean(VerbsProvider.class);
                    DeviceCircuitBreakers breakers = context.getBean(DeviceCircuitBreakers.class);
                    CircuitBreaker breaker = breakers.forContext(context.getBean("main", DeviceContext.class));
                    assertThat(breaker.getName()).isEqualTo("rdma-verbs-main");
                    assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);

                    provider.injectDeviceFatal("rxe0");

                    await().atMost(Duration.ofSeconds(5))
                            .until(() -> breaker.getState() == CircuitBreaker.State.FORCED_OPEN);
                    assertThat(breaker.tryAcquirePermission()).isFalse();
                    Received received = context.getBean(Received.class);
                    assertThat(received.events).extracting(VerbsAsyncEvent::type).contains(AsyncEventType.DEVICE_FATAL);
                    Health health = indicator(context.getBean("rdmaVerbsHealthContributor",
                            CompositeHealthContributor.class)).health();
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.getDetails()).containsEntry("circuitBreaker", "FORCED_OPEN");
                    assertThat((String) health.getDetails().get("reason")).contains("fatal event");
                    context.close();
                    assertThat(provider.resourceCounts("rxe0").objects()).isZero();
                });
    }

    @Test
    void readersStopWithTheContextBeforeTheTeardown() {
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .run(context -> {
                    AsyncEventReaders readers = context.getBean(AsyncEventReaders.class);
                    assertThat(readers.activeReaders()).isEqualTo(1);
                    assertThat(readers.getPhase()).isGreaterThan(context.getBean(VerbsTeardown.class).getPhase());
                    context.close();
                    assertThat(readers.activeReaders()).isZero();
                    assertThat(readers.isRunning()).isFalse();
                });
    }

    @Test
    void aStopWakesTheReadersInsteadOfWaitingForTheirWaitsToEnd() throws Exception {
        Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0"), DeviceProfile.rxe("rxe1")));
        // Waits of 30 s: a stop that waited for them would give up after its 2 s join with the readers alive.
        AsyncEventReaders readers = new AsyncEventReaders(Duration.ofSeconds(30));
        verbs.addListener(readers);
        DeviceContext first = verbs.openDevice(verbs.findDevice("rxe0"), "first");
        DeviceContext second = verbs.openDevice(verbs.findDevice("rxe1"), "second");
        try {
            for (int round = 0; round < 3; round++) {
                readers.start();
                await().atMost(Duration.ofSeconds(5)).until(() -> readers.activeReaders() == 2);
                Thread.sleep(50);
                long start = System.nanoTime();

                readers.stop();

                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
                assertThat(readers.activeReaders()).isZero();
            }
        } finally {
            readers.stop();
            second.close();
            first.close();
        }
    }

    @Test
    void aContextOpenedByTheApplicationGetsItsReaderAtOnce() {
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .run(context -> {
                    AsyncEventReaders readers = context.getBean(AsyncEventReaders.class);
                    Verbs verbs = context.getBean(Verbs.class);
                    verbs.openDevice(verbs.findDevice("rxe0"), "second");
                    assertThat(readers.activeReaders()).isEqualTo(2);
                });
    }

    @Test
    void aStartupFailingAfterTheReadersStartedLeavesNoReaderRunningAndNothingOpen() {
        SimulatedProvider provider = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withBean(VerbsProvider.class, () -> provider)
                .withBean(FailingToStart.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessage("the web server's port is taken");
                });
        assertThat(FailingToStart.readersWhenItStarted).as("readers alive when the later lifecycle failed").isOne();
        assertThat(readerThreads()).as("rdma-verbs-async-* threads after the failed startup").isEmpty();
        assertThat(provider.resourceCounts("rxe0").objects()).isZero();
        assertThat(provider.resourceCounts("rxe0").contexts()).isZero();
    }

    private static List<String> readerThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("rdma-verbs-async-")).toList();
    }

    /** Starts after the readers, as the web server does, and fails as a web server on a taken port would. */
    static class FailingToStart implements SmartLifecycle {

        static volatile int readersWhenItStarted = -1;

        private final AsyncEventReaders readers;

        FailingToStart(AsyncEventReaders readers) {
            this.readers = readers;
        }

        @Override
        public void start() {
            readersWhenItStarted = readers.activeReaders();
            throw new IllegalStateException("the web server's port is taken");
        }

        @Override
        public void stop() {
        }

        @Override
        public boolean isRunning() {
            return false;
        }

        @Override
        public int getPhase() {
            return AsyncEventReaders.PHASE + 1;
        }
    }

    private static HealthIndicator indicator(CompositeHealthContributor composite) {
        return (HealthIndicator) composite.getContributor("main");
    }

    static class Received {

        final List<VerbsAsyncEvent> events = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        @EventListener
        void on(VerbsAsyncEvent event) {
            events.add(event);
            threads.add(Thread.currentThread().getName());
        }
    }
}
