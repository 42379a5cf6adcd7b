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
import io.rdmaverbs.verbs.provider.AsyncEventVerbs;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Arming, completion channels, event acknowledgement, and what destroy does with events in flight. */
@Timeout(20)
class CompletionEventTest {

    private final VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"));
    private final SimulatedProvider provider = rig.provider;
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final AsyncEventVerbs asyncVerbs = provider.asyncEventVerbs();
    private final ContextHandle ctx = rig.open("rxe0");
    private final PdHandle pd = domainVerbs.allocPd(ctx);
    private final CompChannelHandle channel = cqVerbs.createCompChannel(ctx);
    private final CqHandle cq = cqVerbs.createCq(ctx, 16, channel, 0);
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
        assertThat(cqVerbs.getCqEvent(channel, 0)).isNull();
        assertThat(rig.poll(cq)).hasSize(2);
    }

    @Test
    void anArmedCqFiresOnceForTheNextCompletionAndTheEventNamesTheCq() {
        cqVerbs.reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);

        assertThat(cqVerbs.getCqEvent(channel, 1000)).isSameAs(cq);
        assertThat(cqVerbs.getCqEvent(channel, 0)).as("disarmed after firing").isNull();
        cqVerbs.ackCqEvents(cq, 1);

        cqVerbs.reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);
        assertThat(cqVerbs.getCqEvent(channel, 1000)).isSameAs(cq);
        cqVerbs.ackCqEvents(cq, 1);
    }

    @Test
    void armingDoesNotReportCompletionsAlreadyQueued() {
        exchange(SendFlag.SIGNALED);
        cqVerbs.reqNotifyCq(cq, false);
        assertThat(cqVerbs.getCqEvent(channel, 0)).isNull();
    }

    @Test
    void solicitedOnlyFiresForSolicitedReceivesButNotForOtherCompletions() {
        cqVerbs.reqNotifyCq(cq, true);
        exchange(SendFlag.SIGNALED);
        assertThat(cqVerbs.getCqEvent(channel, 0)).isNull();

        exchange(SendFlag.SIGNALED | SendFlag.SOLICITED);
        assertThat(cqVerbs.getCqEvent(channel, 1000)).isSameAs(cq);
        cqVerbs.ackCqEvents(cq, 1);

        cqVerbs.reqNotifyCq(cq, true);
        rig.rdma(a, SendOpcode.RDMA_WRITE, 3, buf, 8, mr, buf.address(), mr.rkey() + 1, SendFlag.SIGNALED);
        assertThat(cqVerbs.getCqEvent(channel, 0)).as("rxe: send-side errors never fire solicited-only").isNull();
    }

    @Test
    void getCqEventWaitsForACompletionFromAnotherThread() throws Exception {
        cqVerbs.reqNotifyCq(cq, false);
        CompletableFuture<CqHandle> waiter = CompletableFuture.supplyAsync(() -> cqVerbs.getCqEvent(channel, 10_000));
        Thread.sleep(50);
        assertThat(waiter).isNotDone();

        exchange(SendFlag.SIGNALED);

        assertThat(waiter.get(5, TimeUnit.SECONDS)).isSameAs(cq);
        cqVerbs.ackCqEvents(cq, 1);
    }

    @Test
    void getCqEventTimesOutWithNull() {
        long start = System.nanoTime();
        assertThat(cqVerbs.getCqEvent(channel, 30)).isNull();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(25));
    }

    @Test
    void acknowledgingMoreEventsThanWereDeliveredIsACallerBug() {
        assertThatThrownBy(() -> cqVerbs.ackCqEvents(cq, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only 0");
        cqVerbs.reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);
        cqVerbs.getCqEvent(channel, 1000);
        assertThatThrownBy(() -> cqVerbs.ackCqEvents(cq, 2)).isInstanceOf(IllegalArgumentException.class);
        cqVerbs.ackCqEvents(cq, 1);
    }

    @Test
    void destroyCqBlocksUntilAnotherThreadAcknowledgesItsEvents() throws Exception {
        cqVerbs.reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);
        assertThat(cqVerbs.getCqEvent(channel, 1000)).isSameAs(cq);
        qpVerbs.destroyQp(a);
        qpVerbs.destroyQp(b);

        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Void> destroy = CompletableFuture.runAsync(() -> {
            started.countDown();
            cqVerbs.destroyCq(cq);
        });
        started.await();
        Thread.sleep(100);
        assertThat(destroy).as("ibv_destroy_cq waits for the unacknowledged event").isNotDone();
        assertVerbFails(() -> cqVerbs.destroyCompChannel(channel), "ibv_destroy_comp_channel", Errno.EBUSY);

        cqVerbs.ackCqEvents(cq, 1);

        destroy.get(5, TimeUnit.SECONDS);
        cqVerbs.destroyCompChannel(channel);
        assertThat(provider.resourceCounts("rxe0").cqs()).isZero();
    }

    @Test
    void anInterruptedDestroyCqFailsWithEintrAndCanBeRetriedAfterTheAck() throws Exception {
        cqVerbs.reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);
        cqVerbs.getCqEvent(channel, 1000);
        qpVerbs.destroyQp(a);
        qpVerbs.destroyQp(b);

        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread destroyer = new Thread(() -> {
            try {
                cqVerbs.destroyCq(cq);
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
        assertThatThrownBy(() -> cqVerbs.pollCq(cq, cqVerbs.newWorkCompletions(1), 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("being destroyed");
        cqVerbs.ackCqEvents(cq, 1);
        cqVerbs.destroyCq(cq);
    }

    @Test
    void destroyingACqDiscardsItsEventsNotYetRead() {
        cqVerbs.reqNotifyCq(cq, false);
        exchange(SendFlag.SIGNALED);
        qpVerbs.destroyQp(a);
        qpVerbs.destroyQp(b);

        cqVerbs.destroyCq(cq);

        assertThat(cqVerbs.getCqEvent(channel, 0)).isNull();
        cqVerbs.destroyCompChannel(channel);
    }

    @Test
    void aFullCqLosesCompletionsAndRaisesCqErrPerLostCompletion() {
        CqHandle tiny = cqVerbs.createCq(ctx, 1, null, 0);
        QpHandle s = rig.qp(ctx, pd, tiny, QpType.RC);
        QpHandle r = rig.qp(ctx, pd, tiny, QpType.RC);
        rig.connect(s, ctx, r, ctx);
        rig.receive(r, 1, buf.asSlice(128), 64, mr);
        rig.post(s, SendOpcode.SEND, 2, buf, 8, mr, SendFlag.SIGNALED);

        assertThat(rig.poll(tiny)).extracting(VerbsRig.Wc::wrId).containsExactly(1L);
        AsyncEventRecord event = asyncVerbs.getAsyncEvent(ctx, 1000);
        assertThat(event).isEqualTo(new AsyncEventRecord(AsyncEventType.CQ_ERR, tiny, 0));
        assertThat(asyncVerbs.getAsyncEvent(ctx, 0)).isNull();
    }

    @Test
    void aWakeEndsAWaitForACompletionEventAtOnce() throws Exception {
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            assertThat(cqVerbs.getCqEvent(channel, 30_000)).isNull();
            return System.nanoTime() - start;
        });
        Thread.sleep(50);

        cqVerbs.wakeCqEventWaiters(channel);

        assertThat(waiter.get(10, TimeUnit.SECONDS)).isLessThan(TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void wakesWithoutAWaiterEndOnlyTheNextWait() {
        cqVerbs.wakeCqEventWaiters(channel);
        cqVerbs.wakeCqEventWaiters(channel);

        long start = System.nanoTime();
        assertThat(cqVerbs.getCqEvent(channel, 30_000)).isNull();
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
        start = System.nanoTime();
        assertThat(cqVerbs.getCqEvent(channel, 200)).isNull();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(190));
    }

    @Test
    void wakingADestroyedChannelDoesNothing() {
        CompChannelHandle other = cqVerbs.createCompChannel(ctx);
        cqVerbs.destroyCompChannel(other);

        cqVerbs.wakeCqEventWaiters(other);

        assertThatThrownBy(() -> cqVerbs.getCqEvent(other, 0)).isInstanceOf(IllegalStateException.class);
    }
}
