package io.rdmaverbs.verbs.scenario;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.ClosePlan;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.attr.WorkCompletions;

import static io.rdmaverbs.verbs.scenario.Fixtures.CAPS;
import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Close policies, plans, leases, idempotence and use-after-close: the graph's own rules. */
final class LifetimeScenarios {

    private LifetimeScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("a strict close with stuck references is refused and touches nothing",
                        LifetimeScenarios::strictCloseTouchesNothing),
                new Scenario("a cascade close releases dependents first, in the planned order",
                        LifetimeScenarios::cascadeReleasesChildrenFirst),
                new Scenario("a close plan orders children first and lists what blocks a strict close",
                        LifetimeScenarios::closePlanOrderAndBlockers),
                new Scenario("a lease is reported with holder, time and stack until released; cascade revokes it",
                        LifetimeScenarios::leasesAreReportedAndRevoked),
                new Scenario("the provider holds exactly what the graph holds, so the leak check sees a leak",
                        LifetimeScenarios::providerObjectsFollowTheGraph),
                new Scenario("close is idempotent", LifetimeScenarios::closeIsIdempotent),
                new Scenario("a closed resource is rejected in Java, from any thread",
                        LifetimeScenarios::useAfterCloseIsRejected),
                new Scenario("closing while other threads poll and post never reaches native code with a stale handle",
                        LifetimeScenarios::closeRacingUse),
                new Scenario("a channel waiter is stopped when its channel closes",
                        LifetimeScenarios::channelWaiterStopsOnClose),
                new Scenario("a woken channel waiter returns empty long before its timeout",
                        LifetimeScenarios::wokenChannelWaiterReturnsEmpty),
                new Scenario("a woken async-event waiter returns empty long before its timeout",
                        LifetimeScenarios::wokenAsyncEventWaiterReturnsEmpty),
                new Scenario("a context's async-event waiter is stopped when the context closes",
                        LifetimeScenarios::asyncEventWaiterStopsOnClose));
    }

    static void strictCloseTouchesNothing(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        MemoryRegion mr = pd.allocateMemory(4096, LOCAL, "mr");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(8), "cq");
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS), "qp");

        CloseRefusedException refusal = steps.refused("strict close of the PD", pd::close);
        assertThat(refusal.verb()).isEqualTo("ibv_dealloc_pd");
        assertThat(refusal.stuckReferences()).extracting(StuckReference::blocker)
                .containsExactlyInAnyOrder(mr.ref(), qp.ref());
        assertThat(refusal.getMessage()).contains("EBUSY", "'mr'", "'qp'", "nothing was released");
        assertThat(List.of(pd, mr, cq, qp)).allMatch(r -> r.isOpen());
        // Still usable: the refusal really touched nothing.
        steps.ok("ibv_query_qp after the refusal", qp::query);
        steps.ok("ibv_destroy_qp", qp::close);
        steps.ok("ibv_dereg_mr", mr::close);
        steps.ok("ibv_dealloc_pd", pd::close);
        steps.ok("ibv_destroy_cq", cq::close);
    }

    static void cascadeReleasesChildrenFirst(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        CompletionChannel channel = ctx.createCompletionChannel("channel");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(8).withChannel(channel), "cq");
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        MemoryRegion mr = pd.allocateMemory(4096, LOCAL, "mr");
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS), "qp");

        CloseReport report = steps.make("cascade close of the context",
                () -> run.verbs().close(List.of(ctx), ClosePolicy.CASCADE));
        assertThat(report.left()).isEmpty();
        List<String> order = report.closed().stream().map(ResourceRef::name).toList();
        assertThat(order).containsExactlyInAnyOrder("qp", "mr", "pd", "cq", "channel", ctx.name());
        assertThat(order.indexOf("qp")).isLessThan(order.indexOf("pd")).isLessThan(order.indexOf(ctx.name()));
        assertThat(order.indexOf("qp")).isLessThan(order.indexOf("cq"));
        assertThat(order.indexOf("mr")).isLessThan(order.indexOf("pd"));
        assertThat(order.indexOf("cq")).isLessThan(order.indexOf("channel"));
        assertThat(order.getLast()).isEqualTo(ctx.name());
        assertThat(List.of(ctx, channel, cq, pd, mr, qp)).allMatch(r -> r.isClosed());
    }

    static void closePlanOrderAndBlockers(ScenarioRun run) throws Exception {
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        MemoryRegion mr = pd.allocateMemory(4096, LOCAL, "mr");
        Lease lease;
        ClosePlan strict;
        try (Lease l = mr.lease("plan-test")) {
            lease = l;
            strict = run.verbs().planClose(List.of(pd, mr), ClosePolicy.STRICT);
            assertThat(strict.steps()).extracting(s -> s.resource().name()).containsExactly("mr", "pd");
            assertThat(strict.steps()).extracting(ClosePlan.Step::verb).containsExactly("ibv_dereg_mr", "ibv_dealloc_pd");
            // The PD's MR is released by an earlier step; only the lease is in the way.
            assertThat(strict.isBlocked()).isTrue();
            assertThat(strict.blockers()).singleElement().satisfies(b -> {
                assertThat(b.cause()).isEqualTo(StuckReference.Cause.LEASE);
                assertThat(b.lease()).isSameAs(lease);
            });
            ClosePlan pdOnly = run.verbs().planClose(List.of(pd), ClosePolicy.STRICT);
            assertThat(pdOnly.blockers()).extracting(StuckReference::blocker).containsExactly(mr.ref());
            ClosePlan cascade = run.verbs().planClose(List.of(ctx), ClosePolicy.CASCADE);
            assertThat(cascade.steps()).extracting(s -> s.resource().kind())
                    .containsExactly(ResourceKind.MEMORY_REGION, ResourceKind.PROTECTION_DOMAIN,
                            ResourceKind.DEVICE_CONTEXT);
            assertThat(cascade.steps().getFirst().preparations()).anyMatch(p -> p.contains("plan-test"));
            assertThat(cascade.describe()).contains("ibv_dereg_mr", "ibv_dealloc_pd", "ibv_close_device");
        }
        ClosePlan after = run.verbs().planClose(List.of(pd, mr), ClosePolicy.STRICT);
        assertThat(after.isBlocked()).isFalse();
        CloseReport report = run.verbs().close(List.of(pd, mr), ClosePolicy.STRICT);
        assertThat(report.closed()).extracting(ResourceRef::name).containsExactly("mr", "pd");
    }

    static void leasesAreReportedAndRevoked(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        Lease lease = pd.lease("order-service");
        StuckReference s = pd.stuckReferences().getFirst();
        assertThat(s.cause()).isEqualTo(StuckReference.Cause.LEASE);
        assertThat(s.consequence()).isEqualTo(StuckReference.Consequence.BREAKS_LEASE);
        assertThat(s.lease()).isSameAs(lease);
        assertThat(lease.holder()).isEqualTo("order-service");
        assertThat(lease.thread()).isEqualTo(Thread.currentThread().getName());
        assertThat(lease.since()).isBeforeOrEqualTo(java.time.Instant.now());
        assertThat(lease.stack().getFirst().getMethodName()).isEqualTo("leasesAreReportedAndRevoked");
        assertThat(s.message()).contains("order-service", "leasesAreReportedAndRevoked");
        steps.refused("strict close of a leased PD", pd::close);
        lease.close();
        lease.close();
        assertThat(pd.stuckReferences()).isEmpty();

        Lease second = pd.lease("batch-job");
        steps.ok("cascade close of a leased PD", () -> pd.close(ClosePolicy.CASCADE));
        assertThat(second.isRevoked()).isTrue();
        assertThat(second.isHeld()).isFalse();
        assertThatThrownBy(() -> pd.lease("late")).isInstanceOf(ResourceClosedException.class);
    }

    static void providerObjectsFollowTheGraph(ScenarioRun run) throws Exception {
        java.util.Map<String, Integer> before = run.liveObjects();
        assertThat(before).as("the provider can be asked what it holds").containsKeys("pd", "cq", "qp", "mr");
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(8));
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS));
        MemoryRegion mr = pd.allocateMemory(4096, LOCAL, "mr");
        java.util.Map<String, Integer> during = run.liveObjects();
        for (String type : java.util.List.of("pd", "cq", "qp", "mr")) {
            assertThat(during.get(type)).as("%s objects while the graph holds one", type).isEqualTo(before.get(type) + 1);
        }
        run.verbs().close(java.util.List.of(qp, mr, pd, cq), ClosePolicy.STRICT);
        java.util.Map<String, Integer> after = run.liveObjects();
        for (String type : java.util.List.of("pd", "cq", "qp", "mr")) {
            assertThat(after.get(type)).as("%s objects once released", type).isEqualTo(before.get(type));
        }
    }

    static void closeIsIdempotent(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(4));
        steps.ok("ibv_dealloc_pd", pd::close);
        pd.close();
        pd.close(ClosePolicy.CASCADE);
        pd.close(ClosePolicy.ATTEMPT);
        steps.ok("ibv_destroy_cq", cq::close);
        cq.close();
        assertThat(run.verbs().resources()).containsExactly(ctx);
    }

    static void useAfterCloseIsRejected(ScenarioRun run) throws Exception {
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(4), "cq");
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS), "qp");
        MemoryRegion mr = pd.allocateMemory(64, LOCAL, "mr");
        var send = qp.newSendRequest(1).single(mr, 0, 64);
        WorkCompletions wc = cq.newWorkCompletions(4);
        qp.close();
        mr.close();

        assertThatThrownBy(() -> qp.postSend(send)).isInstanceOf(ResourceClosedException.class)
                .hasMessageContaining("'qp'").hasMessageContaining("closed");
        assertThatThrownBy(qp::query).isInstanceOf(ResourceClosedException.class);
        assertThatThrownBy(mr::segment).isInstanceOf(ResourceClosedException.class);
        // From another thread too.
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<?> f = other.submit(() -> qp.modify(io.rdmaverbs.verbs.attr.QpModification
                    .to(io.rdmaverbs.verbs.attr.QpState.RESET)));
            assertThatThrownBy(f::get).hasCauseInstanceOf(ResourceClosedException.class);
        } finally {
            other.shutdownNow();
        }
        cq.close();
        assertThatThrownBy(() -> cq.poll(wc)).isInstanceOf(ResourceClosedException.class);
        assertThatThrownBy(() -> cq.requestNotification(false)).isInstanceOf(ResourceClosedException.class);
        pd.close();
        assertThatThrownBy(() -> pd.allocateMemory(64, LOCAL)).isInstanceOf(ResourceClosedException.class);
        assertThatThrownBy(() -> pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS)))
                .isInstanceOf(ResourceClosedException.class);
        send.close();
        wc.close();
    }

    static void closeRacingUse(ScenarioRun run) throws Exception {
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            for (int round = 0; round < 20; round++) {
                CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(64));
                QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS));
                CountDownLatch started = new CountDownLatch(2);
                AtomicInteger rejected = new AtomicInteger();
                Future<?> poller = pool.submit(() -> {
                    try (WorkCompletions wc = cq.newWorkCompletions(16)) {
                        started.countDown();
                        while (true) {
                            cq.poll(wc);
                        }
                    } catch (ResourceClosedException expected) {
                        rejected.incrementAndGet();
                    }
                    return null;
                });
                Future<?> querier = pool.submit(() -> {
                    started.countDown();
                    try {
                        while (true) {
                            qp.query();
                        }
                    } catch (ResourceClosedException expected) {
                        rejected.incrementAndGet();
                    }
                    return null;
                });
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                cq.close(ClosePolicy.CASCADE);
                poller.get(10, TimeUnit.SECONDS);
                querier.get(10, TimeUnit.SECONDS);
                assertThat(rejected.get()).as("both users were stopped in Java").isEqualTo(2);
                assertThat(qp.isClosed()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
        pd.close();
    }

    static void channelWaiterStopsOnClose(ScenarioRun run) throws Exception {
        DeviceContext ctx = run.open();
        CompletionChannel channel = ctx.createCompletionChannel("channel");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Throwable> waiter = submitUntilClosed(pool, () -> channel.awaitEvent(Duration.ofMinutes(5)));
            awaitWaiter(channel);
            long t0 = System.nanoTime();
            channel.close();
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(ResourceClosedException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        } finally {
            pool.shutdownNow();
        }
    }

    static void wokenChannelWaiterReturnsEmpty(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        CompletionChannel channel = ctx.createCompletionChannel("channel");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Optional<CompletionQueue>> waiter = pool.submit(() -> channel.awaitEvent(Duration.ofSeconds(30)));
            awaitWaiter(channel);
            long t0 = System.nanoTime();
            Optional<CompletionQueue> got = steps.make("wake the channel's waiters",
                    () -> wakeUntilDone(channel::wakeWaiters, waiter));
            assertThat(got).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            assertThat(channel.isOpen()).isTrue();
            steps.ok("ibv_destroy_comp_channel", channel::close);
        } finally {
            pool.shutdownNow();
        }
    }

    static void wokenAsyncEventWaiterReturnsEmpty(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch waiting = new CountDownLatch(1);
            Future<Optional<AsyncEvent>> waiter = pool.submit(() -> {
                waiting.countDown();
                return ctx.awaitAsyncEvent(Duration.ofSeconds(30));
            });
            assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
            long t0 = System.nanoTime();
            Optional<AsyncEvent> got = steps.make("wake the context's async-event waiters",
                    () -> wakeUntilDone(ctx::wakeAsyncEventWaiters, waiter));
            assertThat(got).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            assertThat(ctx.isOpen()).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }

    static void asyncEventWaiterStopsOnClose(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Throwable> waiter = submitUntilClosed(pool, () -> ctx.awaitAsyncEvent(Duration.ofSeconds(30)));
            Thread.sleep(200);
            long t0 = System.nanoTime();
            steps.ok("ibv_close_device with an async-event waiter", ctx::close);
            Throwable thrown = waiter.get(10, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            // A waiter that had not entered its wait yet finds the context closed; one that had is woken.
            assertThat(thrown).isInstanceOf(ResourceClosedException.class);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Runs {@code wait} on {@code pool}, once it has started: the future holds the
     * {@link ResourceClosedException} that ended it, or null if it returned.
     */
    private static Future<Throwable> submitUntilClosed(ExecutorService pool, Callable<?> wait)
            throws InterruptedException {
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Throwable> waiter = pool.submit(() -> {
            waiting.countDown();
            try {
                wait.call();
                return null;
            } catch (ResourceClosedException e) {
                return e;
            }
        });
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
        return waiter;
    }

    private static void awaitWaiter(CompletionChannel channel) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (channel.waiters() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(channel.waiters()).isEqualTo(1);
    }

    /**
     * Wakes until the waiter returns, for at most 5 s: a wake that came before the waiter began its
     * wait is not for it, so one wake could race with a slow start. Without working wakes the waiter
     * stays in its 30 s wait and this fails.
     */
    private static <T> T wakeUntilDone(Runnable wake, Future<T> waiter) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            wake.run();
            try {
                return waiter.get(50, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the waiter did not return within 5 s of being woken", e);
                }
            }
        }
    }
}
