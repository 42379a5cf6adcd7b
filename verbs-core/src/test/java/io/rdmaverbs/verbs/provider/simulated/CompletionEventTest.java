package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Arming, completion channels, event acknowledgement, and what destroy does with events in flight. */
@Timeout(20)
class CompletionEventTest {

    private final VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"));
    private final SimulatedProvider provider = rig.provider;
    private final ContextHandle ctx = rig.open("rxe0");
    private final PdHandle pd = provider.domainVerbs().allocPd(ctx);
    private final CompChannelHandle channel = provider.completionVerbs().createCompChannel(ctx);
    private final CqHandle cq = provider.completionVerbs().createCq(ctx, 16, channel, 0);
    private final QpHandle a = rig.qp(ctx, pd, cq, QpType.RC);
    private final QpHandle b = rig.qp(ctx, pd, cq, QpType.RC);
    private final MemorySegment buf = rig.buffer(256);
    private final MrHandle mr = rig.register(pd, buf);

    CompletionEventTest() {
        rig.connect(a, ctx, b, ctx);
    }

    @AfterEach
    void close() {
        rig.close();
    }

    private void exchange(int flags) {
        rig.receive(b, 1, buf.asSlice(128), 64, mr);
        rig.post(a, SendOpcode.SEND, 2, buf, 8, mr, flags);
    }

    @Test
    void anUnarmedCqQueuesNoEvent() {
        exchange(SendFlag.SIGNALED);
        assertThat(provider.completionVerbs().getCqEvent(channel, 0)).isNull();
        assertThat(rig.poll(cq)).hasSize(2);
    }

    @Test
    void anArmedCqFiresOnceForTheNextCompletionAndTheEventNamesTheCq() {
        provider.completionVerbs().reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);

        assertThat(provider.completionVerbs().getCqEvent(channel, 1000)).isSameAs(cq);
        assertThat(provider.completionVerbs().getCqEvent(channel, 0)).as("disarmed after firing").isNull();
        provider.completionVerbs().ackCqEvents(cq, 1);

        provider.completionVerbs().reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);
        assertThat(provider.completionVerbs().getCqEvent(channel, 1000)).isSameAs(cq);
        provider.completionVerbs().ackCqEvents(cq, 1);
    }

    @Test
    void armingDoesNotReportCompletionsAlreadyQueued() {
        exchange(SendFlag.SIGNALED);
        provider.completionVerbs().reqNotifyCq(cq, false);
        assertThat(provider.completionVerbs().getCqEvent(channel, 0)).isNull();
    }

    @Test
    void solicitedOnlyFiresForSolicitedReceivesButNotForOtherCompletions() {
        provider.completionVerbs().reqNotifyCq(cq, true);
        exchange(SendFlag.SIGNALED);
        assertThat(provider.completionVerbs().getCqEvent(channel, 0)).isNull();

        exchange(SendFlag.SIGNALED | SendFlag.SOLICITED);
        assertThat(provider.completionVerbs().getCqEvent(channel, 1000)).isSameAs(cq);
        provider.completionVerbs().ackCqEvents(cq, 1);

        provider.completionVerbs().reqNotifyCq(cq, true);
        rig.rdma(a, SendOpcode.RDMA_WRITE, 3, buf, 8, mr, buf.address(), mr.rkey() + 1, SendFlag.SIGNALED);
        assertThat(provider.completionVerbs().getCqEvent(channel, 0)).as("rxe: send-side errors never fire solicited-only").isNull();
    }

    @Test
    void getCqEventWaitsForACompletionFromAnotherThread() throws Exception {
        provider.completionVerbs().reqNotifyCq(cq, false);
        CompletableFuture<CqHandle> waiter = CompletableFuture.supplyAsync(() -> provider.completionVerbs().getCqEvent(channel, 10_000));
        Thread.sleep(50);
        assertThat(waiter).isNotDone();

        exchange(SendFlag.SIGNALED);

        assertThat(waiter.get(5, TimeUnit.SECONDS)).isSameAs(cq);
        provider.completionVerbs().ackCqEvents(cq, 1);
    }

    @Test
    void getCqEventTimesOutWithNull() {
        long start = System.nanoTime();
        assertThat(provider.completionVerbs().getCqEvent(channel, 30)).isNull();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(25));
    }

    @Test
    void acknowledgingMoreEventsThanWereDeliveredIsACallerBug() {
        assertThatThrownBy(() -> provider.completionVerbs().ackCqEvents(cq, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only 0");
        provider.completionVerbs().reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);
        provider.completionVerbs().getCqEvent(channel, 1000);
        assertThatThrownBy(() -> provider.completionVerbs().ackCqEvents(cq, 2)).isInstanceOf(IllegalArgumentException.class);
        provider.completionVerbs().ackCqEvents(cq, 1);
    }

    @Test
    void destroyCqBlocksUntilAnotherThreadAcknowledgesItsEvents() throws Exception {
        provider.completionVerbs().reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);
        assertThat(provider.completionVerbs().getCqEvent(channel, 1000)).isSameAs(cq);
        provider.queuePairVerbs().destroyQp(a);
        provider.queuePairVerbs().destroyQp(b);

        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Void> destroy = CompletableFuture.runAsync(() -> {
            started.countDown();
            provider.completionVerbs().destroyCq(cq);
        });
        started.await();
        Thread.sleep(100);
        assertThat(destroy).as("ibv_destroy_cq waits for the unacknowledged event").isNotDone();
        assertVerbFails(() -> provider.completionVerbs().destroyCompChannel(channel), "ibv_destroy_comp_channel", Errno.EBUSY);

        provider.completionVerbs().ackCqEvents(cq, 1);

        destroy.get(5, TimeUnit.SECONDS);
        provider.completionVerbs().destroyCompChannel(channel);
        assertThat(provider.resourceCounts("rxe0").cqs()).isZero();
    }

    @Test
    void anInterruptedDestroyCqFailsWithEintrAndCanBeRetriedAfterTheAck() throws Exception {
        provider.completionVerbs().reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);
        provider.completionVerbs().getCqEvent(channel, 1000);
        provider.queuePairVerbs().destroyQp(a);
        provider.queuePairVerbs().destroyQp(b);

        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread destroyer = new Thread(() -> {
            try {
                provider.completionVerbs().destroyCq(cq);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        destroyer.start();
        Thread.sleep(100);
        destroyer.interrupt();
        destroyer.join(5000);

        assertThat(failure.get()).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINTR));
        assertThatThrownBy(() -> provider.completionVerbs().pollCq(cq, provider.completionVerbs().newWorkCompletions(1), 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("being destroyed");
        provider.completionVerbs().ackCqEvents(cq, 1);
        provider.completionVerbs().destroyCq(cq);
    }

    @Test
    void destroyingACqDiscardsItsEventsNotYetRead() {
        provider.completionVerbs().reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);
        provider.queuePairVerbs().destroyQp(a);
        provider.queuePairVerbs().destroyQp(b);

        provider.completionVerbs().destroyCq(cq);

        assertThat(provider.completionVerbs().getCqEvent(channel, 0)).isNull();
        provider.completionVerbs().destroyCompChannel(channel);
    }

    @Test
    void aFullCqLosesCompletionsAndRaisesCqErrPerLostCompletion() {
        CqHandle tiny = provider.completionVerbs().createCq(ctx, 1, null, 0);
        QpHandle s = rig.qp(ctx, pd, tiny, QpType.RC);
        QpHandle r = rig.qp(ctx, pd, tiny, QpType.RC);
        rig.connect(s, ctx, r, ctx);
        rig.receive(r, 1, buf.asSlice(128), 64, mr);
        rig.post(s, SendOpcode.SEND, 2, buf, 8, mr, SendFlag.SIGNALED);

        assertThat(rig.poll(tiny)).extracting(VerbsRig.Wc::wrId).containsExactly(1L);
        AsyncEventRecord event = provider.asyncEventVerbs().getAsyncEvent(ctx, 1000);
        assertThat(event).isEqualTo(new AsyncEventRecord(AsyncEventType.CQ_ERR, tiny, 0));
        assertThat(provider.asyncEventVerbs().getAsyncEvent(ctx, 0)).isNull();
    }

    @Test
    void aWakeEndsAWaitForACompletionEventAtOnce() throws Exception {
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            assertThat(provider.completionVerbs().getCqEvent(channel, 30_000)).isNull();
            return System.nanoTime() - start;
        });
        Thread.sleep(50);

        provider.completionVerbs().wakeCqEventWaiters(channel);

        assertThat(waiter.get(10, TimeUnit.SECONDS)).isLessThan(TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void wakesWithoutAWaiterEndOnlyTheNextWait() {
        provider.completionVerbs().wakeCqEventWaiters(channel);
        provider.completionVerbs().wakeCqEventWaiters(channel);

        long start = System.nanoTime();
        assertThat(provider.completionVerbs().getCqEvent(channel, 30_000)).isNull();
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
        start = System.nanoTime();
        assertThat(provider.completionVerbs().getCqEvent(channel, 200)).isNull();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(190));
    }

    @Test
    void wakingADestroyedChannelDoesNothing() {
        CompChannelHandle other = provider.completionVerbs().createCompChannel(ctx);
        provider.completionVerbs().destroyCompChannel(other);

        provider.completionVerbs().wakeCqEventWaiters(other);

        assertThatThrownBy(() -> provider.completionVerbs().getCqEvent(other, 0)).isInstanceOf(IllegalStateException.class);
    }
}
