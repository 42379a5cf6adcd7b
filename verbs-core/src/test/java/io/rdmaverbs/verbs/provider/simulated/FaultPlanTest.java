package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The simulated provider's fault plan: which call fails, how, and that a failure changes nothing. */
class FaultPlanTest {

    private final VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"));
    private final SimulatedProvider provider = rig.provider;
    private final FaultPlan faults = provider.faults();
    private final DomainVerbs domains = provider.domainVerbs();
    private final CompletionVerbs cqs = provider.completionVerbs();

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void theNthCallOfAVerbFailsOnceWithTheKernelsExceptionAndAllocatesNothing() {
        ContextHandle ctx = rig.open("rxe0");
        faults.failCall("ibv_alloc_pd", 2, Errno.ENOMEM);

        domains.allocPd(ctx);
        assertVerbFails(() -> domains.allocPd(ctx), "ibv_alloc_pd", Errno.ENOMEM);
        assertThat(provider.resourceCounts("rxe0").pds()).isEqualTo(1);
        domains.allocPd(ctx);

        assertThat(provider.resourceCounts("rxe0").pds()).isEqualTo(2);
        assertThat(faults.injected()).singleElement().satisfies(f -> {
            assertThat(f.verb()).isEqualTo("ibv_alloc_pd");
            assertThat(f.errno()).isEqualTo(Errno.ENOMEM);
            assertThat(f.deviceFatal()).isFalse();
        });
    }

    @Test
    void anInjectedEbusyOnAReleaseLeavesTheObjectAliveAndARetryReleasesIt() {
        ContextHandle ctx = rig.open("rxe0");
        PdHandle pd = domains.allocPd(ctx);
        faults.failCall("ibv_dealloc_pd", 1, Errno.EBUSY);

        assertVerbFails(() -> domains.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        assertThat(provider.resourceCounts("rxe0").pds()).isEqualTo(1);
        domains.allocPd(ctx);   // the context still works, and so does the PD's release
        domains.deallocPd(pd);

        assertThat(provider.resourceCounts("rxe0").pds()).isEqualTo(1);
    }

    @Test
    void failCallsFromFailsThatCallAndEveryLaterOneUntilCleared() {
        ContextHandle ctx = rig.open("rxe0");
        faults.failCallsFrom("ibv_create_cq", 2, Errno.ENOMEM);

        cqs.createCq(ctx, 8, null, 0);
        for (int i = 0; i < 3; i++) {
            assertVerbFails(() -> cqs.createCq(ctx, 8, null, 0), "ibv_create_cq", Errno.ENOMEM);
        }
        faults.clear();
        cqs.createCq(ctx, 8, null, 0);

        assertThat(provider.resourceCounts("rxe0").cqs()).isEqualTo(2);
        assertThat(faults.injected()).hasSize(3);
        assertThat(faults.callsByVerb()).containsEntry("ibv_create_cq", 5L);
    }

    @Test
    void failAnyCallCountsEveryVerbAndFailsTheCallAtThatPosition() {
        ContextHandle ctx = rig.open("rxe0");   // ibv_get_device_list, ibv_open_device
        long before = faults.calls();
        faults.failAnyCall((int) before + 2, Errno.EIO);

        PdHandle pd = domains.allocPd(ctx);
        assertVerbFails(() -> cqs.createCq(ctx, 8, null, 0), "ibv_create_cq", Errno.EIO);
        domains.deallocPd(pd);

        assertThat(before).isEqualTo(2);
        assertThat(faults.calls()).isEqualTo(5);
        assertThat(faults.injected()).extracting(InjectedFault::call).containsExactly(4L);
        assertThat(provider.resourceCounts("rxe0").cqs()).isZero();
    }

    @Test
    void deviceFatalAtKillsTheDeviceAndFailsThatCallWithEio() throws Exception {
        ContextHandle ctx = rig.open("rxe0");
        CqHandle cq = cqs.createCq(ctx, 8, null, 0);
        PdHandle pd = domains.allocPd(ctx);
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        faults.deviceFatalAt("ibv_reg_mr", 1);

        assertVerbFails(() -> rig.register(pd, rig.buffer(64)), "ibv_reg_mr", Errno.EIO);

        assertThat(provider.isFatal("rxe0")).isTrue();
        assertThat(faults.injected()).singleElement().extracting(InjectedFault::deviceFatal).isEqualTo(true);
        AsyncEventRecord event = provider.asyncEventVerbs().getAsyncEvent(ctx, 1000);
        assertThat(event).isNotNull();
        assertThat(event.type()).isEqualTo(AsyncEventType.DEVICE_FATAL);
        assertVerbFails(() -> domains.allocPd(ctx), "ibv_alloc_pd", Errno.EIO);
        provider.queuePairVerbs().destroyQp(qp);   // destroys still succeed after the fatal error
        assertThat(provider.resourceCounts("rxe0").qps()).isZero();
    }

    @Test
    void aForeignHandleIsStillRefusedBeforeAnyFaultIsCounted() {
        ContextHandle ctx = rig.open("rxe0");
        PdHandle pd = domains.allocPd(ctx);
        domains.deallocPd(pd);
        long before = faults.calls();
        faults.failAnyCall((int) before + 1, Errno.EIO);

        assertThatThrownBy(() -> domains.deallocPd(pd)).isInstanceOf(IllegalStateException.class);

        assertThat(faults.calls()).isEqualTo(before);
        assertThat(faults.injected()).isEmpty();
    }

    @Test
    void theBuffersAndWakesAreNotCounted() {
        ContextHandle ctx = rig.open("rxe0");
        long before = faults.calls();

        provider.queuePairVerbs().newSendWr(1).close();
        provider.queuePairVerbs().newRecvWr(1).close();
        cqs.newWorkCompletions(4).close();
        provider.asyncEventVerbs().wakeAsyncEventWaiters(ctx);

        assertThat(faults.calls()).isEqualTo(before);
    }

    @Test
    void resetZeroesTheCountsAndDropsThePlanWhileClearKeepsTheCounts() {
        ContextHandle ctx = rig.open("rxe0");
        faults.failCall("ibv_alloc_pd", 1, Errno.ENOMEM);
        faults.clear();
        domains.allocPd(ctx);
        assertThat(faults.calls()).isEqualTo(3);

        faults.failCall("ibv_alloc_pd", 1, Errno.ENOMEM);
        faults.reset();
        domains.allocPd(ctx);

        assertThat(faults.calls()).isEqualTo(1);
        assertThat(faults.callsByVerb()).containsExactly(java.util.Map.entry("ibv_alloc_pd", 1L));
        assertThat(faults.injected()).isEmpty();
    }

    @Test
    void racingCallsEachGetAUniquePositionSoExactlyOneFails() throws Exception {
        ContextHandle ctx = rig.open("rxe0");
        faults.reset();
        faults.failAnyCall(150, Errno.ENOMEM);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 4; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int i = 0; i < 50; i++) {
                        try {
                            domains.deallocPd(domains.allocPd(ctx));
                        } catch (io.rdmaverbs.verbs.error.VerbsException e) {
                            failures.add(e);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }

        assertThat(failures).hasSize(1);
        assertThat(faults.injected()).singleElement().extracting(InjectedFault::call).isEqualTo(150L);
        // A failed alloc skips its dealloc; a failed dealloc leaves its PD alive.
        boolean deallocFailed = faults.injected().get(0).verb().equals("ibv_dealloc_pd");
        assertThat(faults.calls()).isEqualTo(deallocFailed ? 400 : 399);
        assertThat(provider.resourceCounts("rxe0").pds()).isEqualTo(deallocFailed ? 1 : 0);
    }

    @Test
    void aVerbThatIsNotALibibverbsNameIsRefused() {
        assertThatThrownBy(() -> faults.failCall("allocPd", 1, Errno.ENOMEM))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ibv_create_cq");
        assertThatThrownBy(() -> faults.failAnyCall(0, Errno.ENOMEM)).isInstanceOf(IllegalArgumentException.class);
    }
}
