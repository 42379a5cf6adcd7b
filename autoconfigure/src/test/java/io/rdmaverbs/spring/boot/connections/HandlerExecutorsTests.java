package io.rdmaverbs.spring.boot.connections;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The bounded executor of a listener's handlers: never blocks its caller, never runs more than its bound. */
class HandlerExecutorsTests {

    @Test
    void atMostTheBoundRunAtOnceTheRestWaitAndRunLaterAndTheCallerNeverBlocks() throws InterruptedException {
        HandlerExecutors.Bounded bounded = new HandlerExecutors.Bounded(Thread.ofVirtual().factory(), 2);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(5);
        AtomicInteger peak = new AtomicInteger();
        AtomicInteger running = new AtomicInteger();

        Thread submitter = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 5; i++) {
                bounded.execute(() -> {
                    peak.accumulateAndGet(running.incrementAndGet(), Math::max);
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        running.decrementAndGet();
                        done.countDown();
                    }
                });
            }
        });
        // A submission over the bound that blocked would never end while the first two wait for release.
        assertThat(submitter.join(Duration.ofSeconds(10))).as("all five submitted, none released yet").isTrue();
        Thread.sleep(100);
        assertThat(bounded.running()).isEqualTo(2);
        release.countDown();

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(peak.get()).isEqualTo(2);
        Thread.sleep(50);
        assertThat(bounded.running()).isZero();
    }

    @Test
    void aTaskThatThrowsDoesNotStopTheOnesWaitingBehindIt() throws InterruptedException {
        HandlerExecutors.Bounded bounded = new HandlerExecutors.Bounded(Thread.ofVirtual().factory(), 1);
        CountDownLatch ran = new CountDownLatch(1);
        bounded.execute(() -> {
            throw new IllegalStateException("boom");
        });
        bounded.execute(ran::countDown);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }
}
