package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A thread waiting in {@link CmEventChannel#awaitEvent} and the destroys of the channel's ids
 * ({@code rdma_destroy_id(3)}): the wait is outside the channel's event lock, so a destroy neither wakes
 * the waiter nor waits for it, while the lock still keeps a destroy from running between an event's
 * {@code rdma_get_cm_event} and its link into the graph. On one simulated host, its connection verbs
 * watched (and, for the race, slowed down) on their way to the provider.
 */
class CmEventChannelWaitersTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final SimulatedProvider host = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
    private final InetSocketAddress address = new InetSocketAddress(host.addresses("rxe0").getFirst(), 7471);
    private final AtomicInteger providerWakes = new AtomicInteger();
    private final AtomicInteger readsByWaiter = new AtomicInteger();
    private final CountDownLatch waiterInProvider = new CountDownLatch(1);
    private volatile @Nullable Thread waiter;
    /** Pauses that widen the windows of the destroy race: after the wait saw an event, and after its read. */
    private volatile boolean widenRaceWindows;
    /** Runs before each {@code id->verbs} query ({@link ConnectionVerbs#context}). */
    private volatile @Nullable Runnable onContext;

    private final Verbs verbs = Verbs.using(new ForwardingProvider(host) {
        @Override
        public ConnectionVerbs connectionVerbs() {
            return ForwardingProvider.around(ConnectionVerbs.class, host.connectionVerbs(), this::watch);
        }

        private @Nullable Object watch(Method verb, Object[] args, ForwardingProvider.Call call) throws Throwable {
            boolean byWaiter = Thread.currentThread() == waiter;
            switch (verb.getName()) {
                case "wakeEventWaiters" -> providerWakes.incrementAndGet();
                case "context" -> {
                    Runnable hook = onContext;
                    if (hook != null) {
                        hook.run();
                    }
                }
                case "awaitEventReady" -> {
                    if (byWaiter) {
                        waiterInProvider.countDown();
                    }
                    Object ready = call.proceed();
                    if (widenRaceWindows && Boolean.TRUE.equals(ready)) {
                        pauseUpToAMillisecond();
                    }
                    return ready;
                }
                case "getEvent" -> {
                    if (byWaiter) {
                        readsByWaiter.incrementAndGet();
                    }
                    Object event = call.proceed();
                    if (widenRaceWindows && event != null) {
                        pauseUpToAMillisecond();
                    }
                    return event;
                }
                default -> {
                    // Passed on unwatched.
                }
            }
            return call.proceed();
        }
    });
    private final CmEventChannel channel = verbs.createCmEventChannel("events");

    @AfterEach
    void closeAll() {
        verbs.close();
    }

    private static void pauseUpToAMillisecond() {
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(1)));
    }

    private CompletableFuture<Optional<CmEvent>> waitingOnce(Duration timeout) throws InterruptedException {
        CompletableFuture<Optional<CmEvent>> result = new CompletableFuture<>();
        waiter = Thread.ofPlatform().name("cm-waiter").start(() -> {
            try {
                result.complete(channel.awaitEvent(timeout));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        assertThat(waiterInProvider.await(5, TimeUnit.SECONDS)).as("the waiter reached the provider's wait").isTrue();
        return result;
    }

    @Test
    void destroyingIdsWhileAThreadWaitsForAnEventNeitherWakesNorWaitsForItAndItsCallGetsTheNextEvent()
            throws Exception {
        CompletableFuture<Optional<CmEvent>> waiting = waitingOnce(Duration.ofSeconds(30));

        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            for (int i = 0; i < 50; i++) {
                channel.createId(CmPortSpace.TCP).close();
            }
        });

        assertThat(providerWakes).as("no destroy woke the provider's waiters").hasValue(0);
        assertThat(readsByWaiter).as("the waiter never left its wait to read").hasValue(0);
        assertThat(waiting).as("the waiter's call goes on").isNotDone();
        CmId resolving = channel.createId(CmPortSpace.TCP, "resolving");
        resolving.resolveAddress(null, address, TIMEOUT);
        CmEvent resolved = waiting.get(5, TimeUnit.SECONDS).orElseThrow();
        assertThat(resolved.type()).isEqualTo(CmEventType.ADDR_RESOLVED);
        assertThat(resolved.cmId()).isSameAs(resolving);
        resolved.ack();
    }

    @Test
    void anIdDestroyedAsItsEventArrivesNeverBlocksWhetherTheReaderLinkedTheEventOrTheKernelDroppedIt()
            throws Exception {
        widenRaceWindows = true;
        AtomicInteger linked = new AtomicInteger();
        AtomicReference<@Nullable Throwable> readerFailure = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().name("cm-reader").start(() -> {
            try {
                while (true) {
                    channel.awaitEvent(Duration.ofMillis(50)).ifPresent(e -> {
                        linked.incrementAndGet();
                        e.ack();
                    });
                }
            } catch (ResourceClosedException closed) {
                // The channel's close at the end.
            } catch (Throwable t) {
                readerFailure.set(t);
            }
        });
        int ids = 200;

        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            for (int i = 0; i < ids; i++) {
                CmId id = channel.createId(CmPortSpace.TCP);
                id.resolveAddress(null, address, TIMEOUT); // ADDR_RESOLVED is due at once
                pauseUpToAMillisecond();
                // Acknowledges an event the reader linked and did not ack yet, then rdma_destroy_id.
                id.close(ClosePolicy.CASCADE);
                assertThat(id.isClosed()).isTrue();
            }
        });
        channel.close();
        reader.join(5000);

        assertThat(reader.isAlive()).isFalse();
        assertThat(readerFailure.get()).isNull();
        assertThat(host.liveCmIds()).as("every rdma_destroy_id went through").isZero();
        assertThat(verbs.resources()).noneMatch(r -> r.kind() == ResourceKind.CM_ID || r.kind() == ResourceKind.CM_EVENT);
        assertThat(linked.get()).as("some events reached the reader before their id's destroy").isBetween(1, ids);
    }

    @Test
    void anIdClosedWhileTheReaderLinksItsFirstEventAndAdoptsItsContextClosesWithoutWaitingOutTheDrain()
            throws Exception {
        CmId id = channel.createId(CmPortSpace.TCP, "racing");
        Thread caller = Thread.currentThread();
        CountDownLatch readerAdopting = new CountDownLatch(1);
        // The reader links ADDR_RESOLVED before the caller's resolveAddress adopted id->verbs, and adopts it
        // itself; it goes on only once the caller's close has begun (operations shut out, drain waited for).
        onContext = () -> {
            if (Thread.currentThread() == caller) {
                await(readerAdopting);
            } else if (Thread.currentThread() == waiter) {
                readerAdopting.countDown();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (id.isOpen() && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
            }
        };
        CompletableFuture<Optional<CmEvent>> waiting = waitingOnce(Duration.ofSeconds(30));
        id.resolveAddress(null, address, TIMEOUT);
        onContext = null;

        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> id.close(ClosePolicy.CASCADE));

        assertThat(id.isClosed()).isTrue();
        Optional<CmEvent> linked = waiting.get(5, TimeUnit.SECONDS);
        assertThat(linked).as("linked before the close shut new events out").isPresent();
        assertThat(linked.orElseThrow().isAcknowledged()).as("acknowledged by the cascade").isTrue();
        assertThat(host.liveCmIds()).isZero();
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(5, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void wakeWaitersStillEndsAWaitPromptlyWithNothing() throws Exception {
        CompletableFuture<Optional<CmEvent>> waiting = waitingOnce(Duration.ofSeconds(30));

        channel.wakeWaiters();

        assertThat(waiting.get(5, TimeUnit.SECONDS)).isEmpty();
        assertThat(providerWakes).hasValue(1);
    }

    /** The call's in-flight guard is taken per slice; the waiter count must not dip at a slice end. */
    @Test
    void theWaiterCountHoldsSteadyAcrossSliceEnds() throws Exception {
        CompletableFuture<Optional<CmEvent>> waiting = waitingOnce(Duration.ofSeconds(30));
        int fewest = 1;
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CompletionChannel.WAIT_SLICE_MILLIS * 10);
        while (System.nanoTime() < end) {
            fewest = Math.min(fewest, channel.waiters());
        }

        assertThat(fewest).as("fewest waiters seen while one waits").isEqualTo(1);
        channel.wakeWaiters();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isEmpty();
        assertThat(channel.waiters()).isZero();
    }

    @Test
    void closingTheChannelEndsAWaitWithResourceClosed() throws Exception {
        CompletableFuture<Optional<CmEvent>> waiting = waitingOnce(Duration.ofSeconds(30));

        channel.close();

        assertThat(waiting).failsWithin(5, TimeUnit.SECONDS).withThrowableThat()
                .havingCause().isInstanceOf(ResourceClosedException.class);
    }
}
