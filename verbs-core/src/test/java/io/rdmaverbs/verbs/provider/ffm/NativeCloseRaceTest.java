package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.rdmaverbs.verbs.AddressHandle;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionPoller;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendBatch;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.SharedReceiveQueue;
import io.rdmaverbs.verbs.SharedReceiveQueueSpec;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.WorkRequestBuilder;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.scenario.Fixtures;
import io.rdmaverbs.verbs.scenario.KernelResources;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The close-vs-use races of every guarded data-path object, on a real device: rxe0 in the soft-RoCE guest
 * ({@code -Drdma.verbs.native-tests=true}, as {@code tools/softroce/verbs-suite.sh} runs it). Each race is
 * run {@value #ROUNDS} times (property {@code rdma.verbs.race-rounds}): two threads use an object through the
 * project's API while this thread closes it, which ends in the provider's destroy verb ({@code ibv_destroy_cq},
 * {@code ibv_destroy_qp}, {@code ibv_destroy_srq}, {@code ibv_destroy_ah}) or in the free of a buffer or
 * request. A call the guard let through too late, or did not wait for, reads freed memory: the JVM crashes
 * (the suite reports exit 254) or the call fails in an unexpected way. Every call must either work, fail
 * natively with a {@link VerbsException} (a send queue full, say), or be refused in Java as closed; at least
 * one call of each race must have been refused (the close did race the calls), and the kernel holds nothing
 * of this process afterwards. Also: two pollers of one extended CQ while the JVM stops for a safepoint, and a
 * batch or session refused to another thread and inside its own thread, on rxe's real locks.
 */
@EnabledIfSystemProperty(named = "rdma.verbs.native-tests", matches = "true")
class NativeCloseRaceTest {

    private static final int ROUNDS = Integer.getInteger("rdma.verbs.race-rounds", 50);
    private static final int THREADS = 2;
    /** Calls the threads make before the close, so that it races calls in flight. */
    private static final int CALLS_BEFORE_CLOSE = 20;
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final CompletionQueueSpec EXTENDED = CompletionQueueSpec.of(64)
            .withExtendedPolling(CompletionField.STANDARD);
    private static final EnumSet<AccessFlag> REMOTE_WRITE = EnumSet.of(AccessFlag.LOCAL_WRITE,
            AccessFlag.REMOTE_WRITE);

    private Verbs verbs;
    /** What the kernel held for this process before the test: librdmacm keeps a context and a PD of its own. */
    private Map<String, Integer> before;
    private DeviceContext ctx;
    private ProtectionDomain pd;
    private MemoryRegion buffer;

    @BeforeEach
    void openTheDevice() {
        before = KernelResources.ofThisProcess();
        verbs = Verbs.using(NativeVerbsProvider.load());
        ctx = verbs.openDevice(verbs.devices().getFirst());
        pd = ctx.allocateProtectionDomain("pd");
        buffer = pd.allocateMemory(4096, REMOTE_WRITE, "buffer");
    }

    @AfterEach
    void kernelHoldsNothingOfThisProcess() {
        verbs.close(io.rdmaverbs.verbs.ClosePolicy.CASCADE);
        assertThat(KernelResources.ofThisProcess()).as("rdma resource show, after the races").isEqualTo(before);
    }

    @Test
    void pollingACqAnotherThreadDestroysNeverReadsAFreedCq() throws Exception {
        race("ibv_poll_cq against ibv_destroy_cq", () -> {
            CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16));
            return new Round(thread -> {
                WorkCompletions wc = cq.newWorkCompletions(4);
                return new Use(() -> cq.poll(wc), wc::close);
            }, cq::close);
        });
    }

    @Test
    void armingACqAnotherThreadDestroysNeverReachesAFreedCq() throws Exception {
        race("ibv_req_notify_cq against ibv_destroy_cq", () -> {
            CompletionChannel channel = ctx.createCompletionChannel();
            CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16).withChannel(channel));
            return new Round(thread -> new Use(() -> cq.requestNotification(false), () -> { }), () -> {
                cq.close();
                channel.close();
            });
        });
    }

    @Test
    void aBatchOfAnExtendedCqAnotherThreadDestroysIsNeverOpenOnAFreedCq() throws Exception {
        race("ibv_start_poll .. ibv_end_poll against ibv_destroy_cq", () -> {
            CompletionQueue cq = ctx.createCompletionQueue(EXTENDED);
            return new Round(thread -> {
                CompletionPoller poller = cq.newPoller();
                return new Use(() -> {
                    if (poller.start()) {
                        poller.end();
                    }
                }, () -> { });
            }, cq::close);
        });
    }

    @Test
    void postingToAQpAnotherThreadDestroysNeverReachesAFreedQp() throws Exception {
        race("ibv_post_send, ibv_post_recv and a chain against ibv_destroy_qp", () -> {
            Pair p = pair(SendOps.NONE);
            return new Round(thread -> {
                SendRequest write = rdmaWrite(p.a);
                ReceiveRequest recv = p.a.newReceiveRequest(1).single(buffer, 0, 64);
                SendBatch chain = p.a.newSendBatch(4, 1);
                for (int i = 0; i < 4; i++) {
                    chain.add().opcode(SendOpcode.RDMA_WRITE).flags(0).remote(buffer.address(), buffer.rkey())
                            .single(buffer, 64, 64);
                }
                return new Use(() -> {
                    p.a.postSend(write);
                    p.a.postReceive(recv);
                    p.a.postSend(chain);
                }, () -> {
                    write.close();
                    recv.close();
                    chain.close();
                });
            }, () -> {
                p.a.close();
                p.b.close();
                p.cq.close();
            });
        });
    }

    @Test
    void postingToAnSrqAnotherThreadDestroysNeverReachesAFreedSrq() throws Exception {
        race("ibv_post_srq_recv against ibv_destroy_srq", () -> {
            SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(64));
            return new Round(thread -> {
                ReceiveRequest recv = srq.newReceiveRequest(1).single(buffer, 0, 64);
                return new Use(() -> srq.postReceive(recv), recv::close);
            }, srq::close);
        });
    }

    @Test
    void aSessionOnAQpAnotherThreadDestroysIsNeverOpenOnAFreedQp() throws Exception {
        // Inside a session nothing may fail: the destroy waits for its end, so the QP is there throughout.
        List<Throwable> insideSessions = new CopyOnWriteArrayList<>();
        race("ibv_wr_start .. ibv_wr_abort against ibv_destroy_qp", () -> {
            Pair p = pair(SendOps.SEND);
            return new Round(thread -> {
                WorkRequestBuilder builder = p.a.newWorkRequestBuilder(1);
                return new Use(() -> {
                    builder.start();
                    try {
                        builder.wrId(1).send().sge(buffer, 0, 64);
                    } catch (RuntimeException e) {
                        insideSessions.add(e);
                        throw e;
                    } finally {
                        builder.abort();
                    }
                }, () -> { });
            }, () -> {
                p.a.close();
                p.b.close();
                p.cq.close();
            });
        });
        assertThat(insideSessions).as("failures inside a session").isEmpty();
    }

    @Test
    void aUdPostNamingAnAddressHandleAnotherThreadDestroysNeverReadsAFreedAh() throws Exception {
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(256));
        QueuePair ud = udQp(cq, QueuePairSpec.ud(cq, cq, Fixtures.CAPS).withSendOps(SendOpcode.SEND));
        race("a UD ibv_post_send and ibv_wr_set_ud_addr against ibv_destroy_ah", () -> {
            AddressHandle ah = pd.createAddressHandle(Fixtures.selfAddress(ctx));
            return new Round(thread -> {
                SendRequest send = ud.newSendRequest(1).flags(0).single(buffer, 0, 64)
                        .datagram(ah, ud.qpNum(), QueuePair.DEFAULT_QKEY);
                WorkRequestBuilder builder = ud.newWorkRequestBuilder(1);
                return new Use(() -> {
                    ud.postSend(send);
                    builder.start();
                    try {
                        builder.wrId(2).send().sge(buffer, 0, 64).udAddress(ah, ud.qpNum(), QueuePair.DEFAULT_QKEY);
                    } finally {
                        builder.abort();
                    }
                }, send::close);
            }, ah::close);
        });
    }

    @Test
    void closingABufferOrARequestAnotherThreadUsesNeverFreesItUnderTheCall() throws Exception {
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(256));
        Pair p = pair(SendOps.NONE);
        race("ibv_poll_cq into a buffer and ibv_post_send of a request, against their close", () -> {
            WorkCompletions wc = cq.newWorkCompletions(4);
            SendRequest write = rdmaWrite(p.a);
            return new Round(thread -> new Use(thread == 0 ? () -> cq.poll(wc) : () -> p.a.postSend(write), () -> { }),
                    () -> {
                        wc.close();
                        write.close();
                    });
        });
    }

    /**
     * The hang of issue 20 on rxe's real CQ lock: a thread holds a batch (rxe's {@code cq_start_poll} took the
     * CQ's spinlock), a second poller starts on another thread, and the JVM stops for a safepoint.
     */
    @Test
    void aSecondPollerWaitingForABatchLetsTheJvmStopForASafepoint() throws Exception {
        Pair p = pair(SendOps.NONE, EXTENDED);
        ExecutorService second = Executors.newSingleThreadExecutor();
        try (SendRequest send = p.a.newSendRequest(1).single(buffer, 0, 64);
                ReceiveRequest recv = p.b.newReceiveRequest(1).single(buffer, 64, 64)) {
            for (int round = 0; round < ROUNDS / 5; round++) {
                p.b.postReceive(recv);
                p.a.postSend(send);
                CompletionPoller first = p.cq.newPoller();
                CompletionPoller other = p.cq.newPoller();
                awaitBatch(first);
                Future<Void> started;
                try {
                    started = second.submit(() -> {
                        awaitBatch(other);
                        other.end();
                        return null;
                    });
                    Thread.sleep(20);
                    System.gc();
                } finally {
                    first.end();
                }
                started.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            second.shutdownNow();
        }
    }

    @Test
    void aBatchAndASessionAreTheirThreadsOnRxeAndTheirThreadIsRefusedWhatWouldSpinOnItsOwnLock() throws Exception {
        Pair p = pair(SendOps.SEND, EXTENDED);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (SendRequest send = p.a.newSendRequest(1).single(buffer, 0, 64);
                ReceiveRequest recv = p.b.newReceiveRequest(1).single(buffer, 64, 64);
                WorkCompletions wc = p.cq.newWorkCompletions(4)) {
            p.b.postReceive(recv);
            p.a.postSend(send);
            CompletionPoller poller = p.cq.newPoller();
            awaitBatch(poller);
            try {
                assertThat(thrownOn(other, poller::end)).isInstanceOf(WrongThreadException.class);
                assertThatThrownBy(() -> p.cq.newPoller().start()).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("inside this thread's own batch");
                assertThatThrownBy(() -> p.cq.poll(wc)).hasMessageContaining("inside this thread's own batch");
            } finally {
                poller.end();
            }
            WorkRequestBuilder builder = p.a.newWorkRequestBuilder(1);
            builder.start();
            try {
                assertThat(thrownOn(other, builder::abort)).isInstanceOf(WrongThreadException.class);
                assertThatThrownBy(() -> p.a.postSend(send)).hasMessageContaining("inside this thread's own session");
            } finally {
                builder.abort();
            }
        } finally {
            other.shutdownNow();
        }
    }

    // ---- the race ---------------------------------------------------------------------------------

    /** What one thread does in a loop, and what it closes once the object is gone. */
    private record Use(Action call, Action cleanup) {
    }

    /** One round: what each racing thread uses (made on this thread, by index), and the close under test. */
    private record Round(Function<Integer, Use> use, Action close) {
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    @FunctionalInterface
    private interface Setup {
        Round next() throws Exception;
    }

    private static void race(String what, Setup setup) throws Exception {
        AtomicLong calls = new AtomicLong();
        AtomicLong nativeFailures = new AtomicLong();
        AtomicLong refusals = new AtomicLong();
        Map<String, Throwable> unexpected = new ConcurrentHashMap<>();
        for (int round = 0; round < ROUNDS; round++) {
            Round r = setup.next();
            List<Use> uses = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                uses.add(r.use.apply(i));
            }
            AtomicBoolean closed = new AtomicBoolean();
            CountDownLatch warm = new CountDownLatch(THREADS * CALLS_BEFORE_CLOSE);
            List<Thread> threads = new ArrayList<>();
            for (Use use : uses) {
                threads.add(Thread.ofPlatform().daemon().start(() -> {
                    while (true) {
                        try {
                            use.call.run();
                            calls.incrementAndGet();
                        } catch (VerbsException e) {
                            nativeFailures.incrementAndGet();
                        } catch (IllegalStateException e) {
                            if (!closed.get()) {
                                unexpected.put(e.getMessage(), e);   // refused before any close began
                            }
                            refusals.incrementAndGet();
                            return;
                        } catch (Throwable t) {
                            unexpected.put(String.valueOf(t), t);
                            t.printStackTrace();
                            return;
                        } finally {
                            warm.countDown();
                        }
                    }
                }));
            }
            assertThat(warm.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("%s: calls before the close", what).isTrue();
            closed.set(true);
            r.close.run();
            for (Thread t : threads) {
                t.join(WAIT.toMillis());
                assertThat(t.isAlive()).as("%s: a thread still calling after the close", what).isFalse();
            }
            for (Use use : uses) {
                use.cleanup.run();
            }
        }
        System.out.printf("%s: %d rounds, %d calls, %d native failures, %d refused as closed%n", what, ROUNDS,
                calls.get(), nativeFailures.get(), refusals.get());
        assertThat(unexpected).as("%s: outcomes other than success, a native failure or a refusal", what).isEmpty();
        assertThat(refusals.get()).as("%s: calls refused after the close (the close raced them)", what).isPositive();
    }

    // ---- fixtures -----------------------------------------------------------------------------------

    /** Whether QP {@code a} of a pair is built for the new post API. */
    private enum SendOps {
        NONE, SEND
    }

    private record Pair(CompletionQueue cq, QueuePair a, QueuePair b) {
    }

    private Pair pair(SendOps ops) {
        return pair(ops, CompletionQueueSpec.of(256));
    }

    /** An RC loopback pair on one CQ of {@code spec}, in RTS; {@code a} built for the new post API when asked. */
    private Pair pair(SendOps ops, CompletionQueueSpec spec) {
        CompletionQueue cq = ctx.createCompletionQueue(spec);
        QueuePairSpec rc = QueuePairSpec.rc(cq, cq, Fixtures.CAPS);
        QueuePair a = pd.createQueuePair(ops == SendOps.SEND ? rc.withSendOps(SendOpcode.SEND) : rc);
        QueuePair b = pd.createQueuePair(rc);
        Fixtures.connect(a, b, Fixtures.selfAddress(ctx), Fixtures.pathMtu(ctx), REMOTE_WRITE);
        return new Pair(cq, a, b);
    }

    private QueuePair udQp(CompletionQueue cq, QueuePairSpec spec) {
        QueuePair ud = pd.createQueuePair(spec);
        ud.toInit(Fixtures.PORT, EnumSet.noneOf(AccessFlag.class));
        ud.toReadyToReceive(null, 0, 0, Fixtures.pathMtu(ctx));
        ud.toReadyToSend(0);
        return ud;
    }

    /** An unsignaled RDMA write (no send flag) of 64 bytes into {@link #buffer}, from {@code qp}. */
    private SendRequest rdmaWrite(QueuePair qp) {
        return qp.newSendRequest(1).opcode(SendOpcode.RDMA_WRITE).flags(0).remote(buffer.address(), buffer.rkey())
                .single(buffer, 128, 64);
    }

    private static void awaitBatch(CompletionPoller poller) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!poller.start()) {
            assertThat(System.nanoTime()).as("a completion within %s", WAIT).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static Throwable thrownOn(ExecutorService thread, Action call) throws Exception {
        return thread.submit(() -> {
            try {
                call.run();
                return null;
            } catch (Throwable t) {
                return t;
            }
        }).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
}
