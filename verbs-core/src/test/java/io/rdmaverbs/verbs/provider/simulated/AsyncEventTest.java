package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;
import io.rdmaverbs.verbs.provider.AsyncEventVerbs;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MemoryRegionVerbs;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The simulation hooks behind health checks: port state changes and fatal device errors. */
@Timeout(20)
class AsyncEventTest {

    private final VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"), DeviceProfile.rxe("rxe1"));
    private final SimulatedProvider provider = rig.provider;
    private final DeviceVerbs deviceVerbs = provider.deviceVerbs();
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final MemoryRegionVerbs mrVerbs = provider.memoryRegionVerbs();
    private final AsyncEventVerbs asyncVerbs = provider.asyncEventVerbs();

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void aPortGoingDownAndUpIsReportedToEveryContextOfTheDevice() {
        ContextHandle first = rig.open("rxe0");
        ContextHandle second = rig.open("rxe0");
        ContextHandle elsewhere = rig.open("rxe1");

        provider.setPortState("rxe0", 1, PortState.DOWN);

        for (ContextHandle ctx : new ContextHandle[] {first, second}) {
            assertThat(asyncVerbs.getAsyncEvent(ctx, 1000)).isEqualTo(new AsyncEventRecord(AsyncEventType.PORT_ERR,
                    null, 1));
        }
        assertThat(asyncVerbs.getAsyncEvent(elsewhere, 0)).isNull();
        assertThat(deviceVerbs.queryPort(first, 1).state()).isEqualTo(PortState.DOWN);
        assertThat(deviceVerbs.queryPort(first, 1).isActive()).isFalse();

        provider.setPortState("rxe0", 1, PortState.ACTIVE);
        assertThat(asyncVerbs.getAsyncEvent(first, 1000)).isEqualTo(new AsyncEventRecord(AsyncEventType.PORT_ACTIVE,
                null, 1));
        assertThat(deviceVerbs.queryPort(first, 1).isActive()).isTrue();
    }

    @Test
    void aWakeEndsAWaitForAnAsyncEventAtOnce() throws Exception {
        ContextHandle ctx = rig.open("rxe0");
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            assertThat(asyncVerbs.getAsyncEvent(ctx, 30_000)).isNull();
            return System.nanoTime() - start;
        });
        Thread.sleep(50);

        asyncVerbs.wakeAsyncEventWaiters(ctx);

        assertThat(waiter.get(10, TimeUnit.SECONDS)).isLessThan(TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void wakesWithoutAWaiterEndOnlyTheNextWaitAndEventsStillCome() {
        ContextHandle ctx = rig.open("rxe0");
        asyncVerbs.wakeAsyncEventWaiters(ctx);
        asyncVerbs.wakeAsyncEventWaiters(ctx);

        long start = System.nanoTime();
        assertThat(asyncVerbs.getAsyncEvent(ctx, 30_000)).isNull();
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
        start = System.nanoTime();
        assertThat(asyncVerbs.getAsyncEvent(ctx, 200)).isNull();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(190));

        provider.setPortState("rxe0", 1, PortState.DOWN);
        assertThat(asyncVerbs.getAsyncEvent(ctx, 5_000).type()).isEqualTo(AsyncEventType.PORT_ERR);
    }

    @Test
    void wakingAClosedContextDoesNothing() {
        ContextHandle ctx = rig.open("rxe0");
        deviceVerbs.closeDevice(ctx);

        asyncVerbs.wakeAsyncEventWaiters(ctx);

        assertThatThrownBy(() -> asyncVerbs.getAsyncEvent(ctx, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void getAsyncEventWaitsForAnEventFromAnotherThread() throws Exception {
        ContextHandle ctx = rig.open("rxe0");
        CompletableFuture<AsyncEventRecord> waiter = CompletableFuture.supplyAsync(
                () -> asyncVerbs.getAsyncEvent(ctx, 10_000));
        Thread.sleep(50);
        provider.setPortState("rxe0", 1, PortState.DOWN);
        assertThat(waiter.get(5, TimeUnit.SECONDS).type()).isEqualTo(AsyncEventType.PORT_ERR);
    }

    @Test
    void rcTrafficThroughADownPortExhaustsTheRetries() {
        ContextHandle c0 = rig.open("rxe0");
        ContextHandle c1 = rig.open("rxe1");
        PdHandle p0 = domainVerbs.allocPd(c0);
        PdHandle p1 = domainVerbs.allocPd(c1);
        CqHandle q0 = cqVerbs.createCq(c0, 8, null, 0);
        CqHandle q1 = cqVerbs.createCq(c1, 8, null, 0);
        QpHandle a = rig.qp(c0, p0, q0, QpType.RC);
        QpHandle b = rig.qp(c1, p1, q1, QpType.RC);
        rig.connect(a, c0, b, c1);
        MemorySegment buf = rig.buffer(64);
        MrHandle mr = rig.register(p0, buf);

        provider.setPortState("rxe1", 1, PortState.DOWN);
        rig.post(a, SendOpcode.SEND, 1, buf, 8, mr, SendFlag.SIGNALED);

        assertThat(rig.poll(q0)).extracting(VerbsRig.Wc::status).containsExactly(WcStatus.RETRY_EXC_ERR);
    }

    @Test
    void aFatalErrorIsReportedThenEveryVerbButTheDestroysFailsWithEio() {
        ContextHandle ctx = rig.open("rxe0");
        PdHandle pd = domainVerbs.allocPd(ctx);
        CqHandle cq = cqVerbs.createCq(ctx, 8, null, 0);
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        MrHandle mr = rig.register(pd, rig.buffer(64));

        provider.injectDeviceFatal("rxe0");

        assertThat(provider.isFatal("rxe0")).isTrue();
        assertThat(asyncVerbs.getAsyncEvent(ctx, 1000)).isEqualTo(new AsyncEventRecord(AsyncEventType.DEVICE_FATAL,
                null, 0));
        assertVerbFails(() -> asyncVerbs.getAsyncEvent(ctx, 1000), "ibv_get_async_event", Errno.EIO);
        assertVerbFails(() -> domainVerbs.allocPd(ctx), "ibv_alloc_pd", Errno.EIO);
        assertVerbFails(() -> deviceVerbs.queryPort(ctx, 1), "ibv_query_port", Errno.EIO);
        assertVerbFails(() -> cqVerbs.createCq(ctx, 8, null, 0), "ibv_create_cq", Errno.EIO);
        assertVerbFails(() -> qpVerbs.modifyQp(qp, io.rdmaverbs.verbs.attr.QpModification.to(QpState.ERR)),
                "ibv_modify_qp", Errno.EIO);
        assertVerbFails(() -> rig.open("rxe0"), "ibv_open_device", Errno.EIO);

        // After the disassociation the kernel objects are gone: destroys succeed, even out of order.
        domainVerbs.deallocPd(pd);
        cqVerbs.destroyCq(cq);
        mrVerbs.deregMr(mr);
        qpVerbs.destroyQp(qp);
        deviceVerbs.closeDevice(ctx);
        assertThat(provider.resourceCounts("rxe0").objects()).isZero();
        assertThat(provider.leakedObjects()).isEmpty();
    }

    @Test
    void aFatalErrorFlushesPostedWrsAndEndsEventWaitsWithEio() throws Exception {
        ContextHandle ctx = rig.open("rxe0");
        PdHandle pd = domainVerbs.allocPd(ctx);
        CompChannelHandle channel = cqVerbs.createCompChannel(ctx);
        CqHandle cq = cqVerbs.createCq(ctx, 8, channel, 0);
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        MemorySegment buf = rig.buffer(64);
        MrHandle mr = rig.register(pd, buf);
        qpVerbs.modifyQp(qp, io.rdmaverbs.verbs.attr.QpModification.init(1, 0,
                java.util.EnumSet.noneOf(io.rdmaverbs.verbs.attr.AccessFlag.class)));
        rig.receive(qp, 9, buf, 64, mr);
        CompletableFuture<CqHandle> waiter = CompletableFuture.supplyAsync(() -> cqVerbs.getCqEvent(channel, 10_000));
        Thread.sleep(50);

        provider.injectDeviceFatal("rxe0");

        assertThat(waiter).failsWithin(5, TimeUnit.SECONDS).withThrowableThat()
                .havingRootCause().isInstanceOf(io.rdmaverbs.verbs.error.VerbsException.class)
                .withMessageContaining("EIO");
        assertThat(rig.poll(cq)).as("polling still works and shows the flush")
                .extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(9L, WcStatus.WR_FLUSH_ERR));
        assertVerbFails(() -> cqVerbs.destroyCompChannel(channel), "ibv_destroy_comp_channel", Errno.EBUSY);
    }

    @Test
    void hooksRefuseUnknownDevicesAndPorts() {
        assertThatThrownBy(() -> provider.setPortState("mlx5_9", 1, PortState.DOWN))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> provider.setPortState("rxe0", 2, PortState.DOWN))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> provider.injectDeviceFatal("nope")).isInstanceOf(IllegalArgumentException.class);
    }
}
