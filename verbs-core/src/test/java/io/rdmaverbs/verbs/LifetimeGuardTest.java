package io.rdmaverbs.verbs;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A resource's lifetime guard: entries, the drain a close waits for, and the final CLOSED state. */
class LifetimeGuardTest {

    private final LifetimeGuard guard = new LifetimeGuard();

    @Test
    void entriesAreCountedUntilTheyExit() {
        assertThat(guard.tryEnter()).isTrue();
        assertThat(guard.tryEnter()).isTrue();
        assertThat(guard.inFlight()).isEqualTo(2);
        guard.exit();
        guard.exit();
        assertThat(guard.inFlight()).isZero();
        assertThat(guard.isOpen()).isTrue();
    }

    @Test
    void aCloseWithNothingInFlightDrainsAtOnceAndShutsOutEntries() {
        assertThat(guard.beginClosing(() -> { })).isZero();

        assertThat(guard.tryEnter()).isFalse();
        assertThat(guard.isOpen()).isFalse();
        assertThat(guard.isClosing()).isTrue();
        assertThat(guard.isClosed()).isFalse();
        assertThat(guard.inFlight()).isZero();
    }

    @Test
    void theCloseWakesWaitersAfterShuttingOutEntriesAndWaitsForThemToExit() throws Exception {
        assertThat(guard.tryEnter()).isTrue();
        CountDownLatch woken = new CountDownLatch(1);
        // The operation in flight leaves only once woken, as a blocked channel waiter does.
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
            try {
                woken.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            guard.exit();
        });
        boolean[] enteredDuringWake = {true};

        int stillInFlight = guard.beginClosing(() -> {
            enteredDuringWake[0] = guard.tryEnter();
            woken.countDown();
        });

        assertThat(stillInFlight).isZero();
        assertThat(enteredDuringWake[0]).as("an entry while the close wakes the waiters").isFalse();
        assertThat(guard.inFlight()).isZero();
        waiter.get(5, TimeUnit.SECONDS);
    }

    @Test
    void endingACloseThatDidNotHappenLetsEntriesSucceedAgain() {
        guard.beginClosing(() -> { });
        guard.endClosing();

        assertThat(guard.isOpen()).isTrue();
        assertThat(guard.tryEnter()).isTrue();
    }

    @Test
    void closedIsFinalAndKeepsWhy() {
        guard.beginClosing(() -> { });
        guard.markClosed("defunct: its pd was released under it");
        guard.endClosing();

        assertThat(guard.isClosed()).isTrue();
        assertThat(guard.isClosing()).isFalse();
        assertThat(guard.tryEnter()).isFalse();
        assertThat(guard.closedBecause()).isEqualTo("defunct: its pd was released under it");
    }
}
