package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.CqExPoller;
import io.rdmaverbs.verbs.provider.QpExOps;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * "A closed handle never reaches native code, from any thread", with the data path guarded only by each
 * call's {@link CallGuard} (the downcalls pass bare addresses, so the linker keeps nothing alive):
 * threads poll and post in a loop through ops of {@code fake_ops.c} that stay inside for a few
 * microseconds, while the test runs the first step of a destroy (the quiesce before
 * {@code ibv_destroy_cq}/{@code ibv_destroy_qp}, which on this fake object would free nothing) or closes
 * a buffer or request, and then declares the object freed to the ops. An op that is inside while the
 * object is declared freed is a call that passed the guard too late, or that the guard did not wait for.
 * The same for every data-path call the provider guards: chain posts, SRQ posts, {@code req_notify_cq},
 * and an extended CQ's batch and a {@code ibv_qp_ex} session, whose ops are watched at start and end (an
 * end inside a freed object is a batch or session the destroy did not wait for).
 */
class CallGuardRaceTest {

    private static final int THREADS = 3;
    private static SymbolLookup fakeOps;

    private final NativeVerbsProvider provider = NativeVerbsProvider.load();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final SharedReceiveQueueVerbs srqVerbs = provider.sharedReceiveQueueVerbs();
    private final Arena arena = Arena.ofShared();
    private final FakeVerbsContext device = new FakeVerbsContext(arena);
    private final NativeContext context = device.handle(provider, "rxe0");
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Set<String> refusals = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new ArrayList<>();
    private NativeCq cq;
    private NativeQp qp;
    /* Looked up once: declaring the object freed must follow the step under test at once. */
    private MemorySegment freed;

    @BeforeAll
    static void buildFakeOps() throws Exception {
        NativePrerequisites.require(CCompiler.unavailable());
        Path library = CCompiler.sharedLibrary("fake_ops.c");
        fakeOps = SymbolLookup.libraryLookup(library, Arena.global());
    }

    @BeforeEach
    void createObjects() {
        freed = global("watched_object_freed", 4);
        freed.set(JAVA_INT, 0, 0);
        global("watched_calls", 8).set(JAVA_LONG, 0, 0);
        global("watched_calls_while_freed", 8).set(JAVA_LONG, 0, 0);
        MemorySegment watchedPoll = fakeOps.find("fake_poll_cq_watched").orElseThrow();
        MemorySegment watchedPost = fakeOps.find("fake_post_send_watched").orElseThrow();
        cq = new NativeCq(provider, device.object(IbvCq.LAYOUT), context, 16, null, watchedPoll,
                fakeOps.find("fake_req_notify_cq_watched").orElseThrow());
        qp = new NativeQp(provider, device.object(IbvQp.LAYOUT), context, QpType.RC, 0x11, QpCapabilities.of(8, 8),
                QpCapabilities.of(8, 8), watchedPost, fakeOps.find("fake_post_recv_watched").orElseThrow());
    }

    @AfterEach
    void stopThreadsAndFreeFakeDevice() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        arena.close();
    }

    @Test
    void noPollIsInsidePollCqOnceTheCqsDestroyHasQuiescedItFromAnotherThread() throws Exception {
        for (int i = 0; i < THREADS; i++) {
            WorkCompletions wc = cqVerbs.newWorkCompletions(1);
            inLoop(() -> cqVerbs.pollCq(cq, wc, 1));
        }
        awaitCallsInFlight();

        cq.calls().quiesce();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("polls inside a freed CQ").isZero();
        assertThat(refusals).containsExactly(cq.describe() + " is being destroyed");
    }

    @Test
    void aBufferThreadsShareAgainstTheContractIsGuardedAsWellOnceTheCqsDestroyHasQuiescedIt() throws Exception {
        // One buffer, several threads: only the first is the guard's owner, the others take its shared path.
        WorkCompletions wc = cqVerbs.newWorkCompletions(1);
        for (int i = 0; i < THREADS; i++) {
            inLoop(() -> cqVerbs.pollCq(cq, wc, 1));
        }
        awaitCallsInFlight();

        cq.calls().quiesce();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("polls inside a freed CQ").isZero();
        assertThat(refusals).containsExactly(cq.describe() + " is being destroyed");
    }

    @Test
    void noPostIsInsidePostSendOnceTheQpsDestroyHasQuiescedItFromAnotherThread() throws Exception {
        for (int i = 0; i < THREADS; i++) {
            SendWr wr = qpVerbs.newSendWr(1);
            inLoop(() -> qpVerbs.postSend(qp, wr));
        }
        awaitCallsInFlight();

        qp.calls().quiesce();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("posts inside a freed QP").isZero();
        assertThat(refusals).containsExactly(qp.describe() + " is being destroyed");
    }

    @Test
    void closingABufferAnotherThreadPollsIntoWaitsForThePollInsteadOfFreeingItUnderTheOp() throws Exception {
        WorkCompletions wc = cqVerbs.newWorkCompletions(1);
        inLoop(() -> cqVerbs.pollCq(cq, wc, 1));
        awaitCallsInFlight();

        wc.close();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("polls into a freed buffer").isZero();
        assertThat(refusals).isNotEmpty()
                .allMatch(m -> m.startsWith("ibv_wc[1]@") && m.endsWith(" was already closed"));
    }

    @Test
    void closingARequestAnotherThreadPostsWaitsForThePostInsteadOfFreeingItUnderTheOp() throws Exception {
        SendWr wr = qpVerbs.newSendWr(1);
        inLoop(() -> qpVerbs.postSend(qp, wr));
        awaitCallsInFlight();

        wr.close();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("posts of a freed request").isZero();
        assertThat(refusals).isNotEmpty()
                .allMatch(m -> m.startsWith("ibv_send_wr@") && m.endsWith(" was already closed"));
    }

    @Test
    void aDestroyThatFailsLeavesTheCqAndQpUsableAgain() {
        try (WorkCompletions wc = cqVerbs.newWorkCompletions(1); SendWr wr = qpVerbs.newSendWr(1)) {
            cqVerbs.pollCq(cq, wc, 1);
            qpVerbs.postSend(qp, wr);
            cq.calls().quiesce();
            qp.calls().quiesce();

            assertThatThrownBy(() -> cqVerbs.pollCq(cq, wc, 1)).hasMessage(cq.describe() + " is being destroyed");
            assertThatThrownBy(() -> qpVerbs.postSend(qp, wr)).hasMessage(qp.describe() + " is being destroyed");

            // What destroyCq and destroyQp do when the destroy verb fails.
            cq.calls().resume();
            qp.calls().resume();
            long before = global("watched_calls", 8).get(JAVA_LONG, 0);
            assertThat(cqVerbs.pollCq(cq, wc, 1)).isZero();
            qpVerbs.postSend(qp, wr);
            assertThat(global("watched_calls", 8).get(JAVA_LONG, 0)).isEqualTo(before + 2);
        }
    }

    @Test
    void aBufferPollsAnotherCqUnderAGuardOfItsOwnAndTheFirstCqsDestroyDoesNotStopIt() {
        NativeCq other = new NativeCq(provider, device.object(IbvCq.LAYOUT), context, 16, null,
                fakeOps.find("fake_poll_cq_watched").orElseThrow(), MemorySegment.NULL);
        try (WorkCompletions wc = cqVerbs.newWorkCompletions(1)) {
            cqVerbs.pollCq(cq, wc, 1);
            cqVerbs.pollCq(other, wc, 1);
            cq.calls().quiesce();

            assertThat(cqVerbs.pollCq(other, wc, 1)).isZero();
            assertThatThrownBy(() -> cqVerbs.pollCq(cq, wc, 1)).hasMessage(cq.describe() + " is being destroyed");
        }
    }

    @Test
    void aBufferPollingTwoCqsInTurnKeepsAGuardOnEachAndAllocatesNothingOnceCompiled() {
        MemorySegment fastPoll = fakeOps.find("fake_poll_cq").orElseThrow();
        NativeCq first = new NativeCq(provider, device.object(IbvCq.LAYOUT), context, 16, null, fastPoll,
                MemorySegment.NULL);
        NativeCq other = new NativeCq(provider, device.object(IbvCq.LAYOUT), context, 16, null, fastPoll,
                MemorySegment.NULL);
        var threadBean = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().threadId();
        try (WorkCompletions wc = cqVerbs.newWorkCompletions(1)) {
            long fewest = Long.MAX_VALUE;
            for (int round = 0; round < 20 && fewest > 0; round++) {
                long before = threadBean.getThreadAllocatedBytes(thread);
                for (int i = 0; i < 50_000; i++) {
                    cqVerbs.pollCq(first, wc, 1);
                    cqVerbs.pollCq(other, wc, 1);
                }
                fewest = Math.min(fewest, threadBean.getThreadAllocatedBytes(thread) - before);
            }

            assertThat(fewest).as("bytes allocated by 50000 rounds of polling two CQs in turn").isZero();
        }
    }

    @Test
    void noChainPostIsInsidePostSendOrPostRecvOnceTheQpsDestroyHasQuiescedIt() throws Exception {
        for (int i = 0; i < THREADS; i++) {
            WorkRequestChain<SendWr> sends = chainOf(qpVerbs.newSendChain(2, 1));
            WorkRequestChain<RecvWr> recvs = chainOf(qpVerbs.newRecvChain(2, 1));
            inLoop(() -> {
                qpVerbs.postSend(qp, sends);
                qpVerbs.postRecv(qp, recvs);
            });
        }
        awaitCallsInFlight();

        qp.calls().quiesce();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("chain posts inside a freed QP")
                .isZero();
        assertThat(refusals).containsExactly(qp.describe() + " is being destroyed");
    }

    @Test
    void closingAChainAnotherThreadPostsWaitsForThePostInsteadOfFreeingItUnderTheOp() throws Exception {
        WorkRequestChain<SendWr> sends = chainOf(qpVerbs.newSendChain(2, 1));
        inLoop(() -> qpVerbs.postSend(qp, sends));
        awaitCallsInFlight();

        sends.close();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("posts of a freed chain").isZero();
        assertThat(refusals).isNotEmpty()
                .allMatch(m -> m.startsWith("ibv_send_wr[2]@") && m.endsWith(" was already closed"));
    }

    @Test
    void noPostIsInsidePostSrqRecvOnceTheSrqsDestroyHasQuiescedIt() throws Exception {
        NativeSrq srq = new NativeSrq(provider, device.object(IbvSrq.LAYOUT), context, 0,
                fakeOps.find("fake_post_srq_recv_watched").orElseThrow());
        for (int i = 0; i < THREADS; i++) {
            RecvWr one = qpVerbs.newRecvWr(1);
            WorkRequestChain<RecvWr> recvs = chainOf(qpVerbs.newRecvChain(2, 1));
            inLoop(() -> {
                srqVerbs.postSrqRecv(srq, one);
                srqVerbs.postSrqRecv(srq, recvs);
            });
        }
        awaitCallsInFlight();

        srq.calls().quiesce();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("posts inside a freed SRQ").isZero();
        assertThat(refusals).containsExactly(srq.describe() + " is being destroyed");
    }

    @Test
    void noArmingIsInsideReqNotifyCqOnceTheCqsDestroyHasQuiescedIt() throws Exception {
        for (int i = 0; i < THREADS; i++) {
            inLoop(() -> cqVerbs.reqNotifyCq(cq, false));
        }
        awaitCallsInFlight();

        cq.calls().quiesce();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("arms inside a freed CQ").isZero();
        assertThat(refusals).containsExactly(cq.describe() + " is being destroyed");
    }

    @Test
    void noExtendedCqBatchIsOpenOnceTheCqsDestroyHasQuiescedIt() throws Throwable {
        MemorySegment cqEx = device.object(IbvCqEx.LAYOUT);
        fill("fake_watch_cq_ex", cqEx);
        NativeCq extended = new NativeCq(provider, cqEx, context, 16, null, MemorySegment.NULL, MemorySegment.NULL);
        extended.extend(cqEx);
        CqExPoller poller = cqVerbs.cqExPoller(extended);
        for (int i = 0; i < THREADS; i++) {
            inLoop(() -> {
                if (poller.startPoll() == 0) {
                    poller.endPoll();
                }
            });
        }
        awaitCallsInFlight();

        extended.calls().quiesce();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("batch calls inside a freed CQ")
                .isZero();
        assertThat(refusals).containsExactly(extended.describe() + " is being destroyed");
    }

    @Test
    void noQpExSessionIsOpenOnceTheQpsDestroyHasQuiescedIt() throws Throwable {
        MemorySegment qpEx = device.object(IbvQpEx.LAYOUT);
        fill("fake_watch_qp_ex", qpEx);
        NativeQp extended = new NativeQp(provider, qpEx, context, QpType.RC, 0x22, QpCapabilities.of(8, 8),
                QpCapabilities.of(8, 8), MemorySegment.NULL, MemorySegment.NULL);
        extended.extend(new NativeQpExOps(provider, extended, qpEx, 1));
        QpExOps ops = qpVerbs.qpExOps(extended);
        for (int i = 0; i < THREADS; i++) {
            boolean abort = i == 0;
            inLoop(() -> {
                ops.wrStart();
                if (abort) {
                    ops.wrAbort();
                } else {
                    ops.wrComplete();
                }
            });
        }
        awaitCallsInFlight();

        extended.calls().quiesce();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("session calls inside a freed QP")
                .isZero();
        assertThat(refusals).containsExactly(extended.describe() + " is being destroyed");
    }

    @Test
    void noUdPostIsInsidePostSendOnceTheAddressHandlesDestroyHasQuiescedIt() throws Exception {
        NativeQp ud = udQp();
        NativeAh ah = addressHandle();
        for (int i = 0; i < THREADS; i++) {
            SendWr wr = qpVerbs.newSendWr(1);
            wr.datagram(ah, 0x99, 0x1111);
            WorkRequestChain<SendWr> sends = chainOf(qpVerbs.newSendChain(2, 1));
            sends.request(0).datagram(ah, 0x99, 0x1111);
            sends.request(1).datagram(ah, 0x98, 0x1111);
            inLoop(() -> {
                qpVerbs.postSend(ud, wr);
                qpVerbs.postSend(ud, sends);
            });
        }
        awaitCallsInFlight();

        ah.calls().quiesce();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("posts reading a freed AH").isZero();
        assertThat(refusals).containsExactly(ah.describe() + " is being destroyed");
    }

    @Test
    void noSessionIsInsideWrSetUdAddrOnceTheAddressHandlesDestroyHasQuiescedIt() throws Throwable {
        MemorySegment qpEx = device.object(IbvQpEx.LAYOUT);
        fill("fake_fill_qp_ex", qpEx);
        fill("fake_watch_ud_addr", qpEx);
        NativeQp ud = new NativeQp(provider, qpEx, context, QpType.UD, 0x55, QpCapabilities.of(8, 8),
                QpCapabilities.of(8, 8), MemorySegment.NULL, MemorySegment.NULL);
        ud.extend(new NativeQpExOps(provider, ud, qpEx, 1));
        QpExOps ops = qpVerbs.qpExOps(ud);
        NativeAh ah = addressHandle();
        for (int i = 0; i < THREADS; i++) {
            inLoop(() -> {
                ops.wrStart();
                try {
                    ops.send();
                    ops.setUdAddr(ah, 0x99, 0x1111);
                } finally {
                    ops.wrAbort();
                }
            });
        }
        awaitCallsInFlight();

        ah.calls().quiesce();
        declareFreed();

        assertThat(global("watched_calls_while_freed", 8).get(JAVA_LONG, 0)).as("wr_set_ud_addr reading a freed AH")
                .isZero();
        assertThat(refusals).containsExactly(ah.describe() + " is being destroyed");
    }

    // ---- a batch or session on one thread only ----------------------------------------------------
    //
    // The provider holds the CQ's (or the send queue's) lock from ibv_start_poll to ibv_end_poll (ibv_wr_start
    // to ibv_wr_complete or ibv_wr_abort). The fake's counted ops count the batches and sessions open as the
    // provider sees them: a destroy that returns while one is open leaves it running on a freed object.

    /** A batch of an extended CQ or a session of a QP with send ops, in the words of their refusals. */
    enum Span {
        BATCH("batch", "ibv_start_poll", "ibv_end_poll", "the CQ's lock", "poller of the CQ"),
        SESSION("session", "ibv_wr_start", "ibv_wr_complete", "the send queue's lock", "builder of the QP");

        final String noun;
        final String start;
        final String end;
        final String lock;
        final String user;

        Span(String noun, String start, String end, String lock, String user) {
            this.noun = noun;
            this.start = start;
            this.end = end;
            this.lock = lock;
            this.user = user;
        }
    }

    /** A span's object on the fake's counted ops, and how to start and end one. */
    private record Opened(NativeHandle target, Worker.Call start, Worker.Call end) {
    }

    private Opened open(Span span) throws Throwable {
        if (span == Span.BATCH) {
            NativeCq extended = countedExtendedCq();
            CqExPoller poller = cqVerbs.cqExPoller(extended);
            return new Opened(extended, () -> assertThat(poller.startPoll()).isZero(), poller::endPoll);
        }
        NativeQp extended = countedExtendedQp();
        QpExOps ops = qpVerbs.qpExOps(extended);
        return new Opened(extended, ops::wrStart, ops::wrComplete);
    }

    @ParameterizedTest
    @EnumSource(Span.class)
    void anEndOnAnotherThreadIsRefusedSoTheDestroyStillWaitsForTheOneThatThreadBeginsLater(Span span) throws Throwable {
        Opened s = open(span);
        try (Worker o = new Worker("O"); Worker x = new Worker("X")) {
            // The recipe of issue 20: O starts, X ends O's batch (session), O starts and ends once more, X starts.
            o.run(s.start);
            Throwable handOver = x.attempt(s.end);
            if (handOver != null) {
                o.run(s.end);   // refused to X, it is still O's to end
            }
            o.run(() -> {
                s.start.run();
                s.end.run();
            });
            x.run(s.start);

            Future<?> destroy = quiesceOnAnotherThread(s.target);
            assertThat(finishes(destroy, 200)).as("the destroy returned while X's %s was open", span.noun).isFalse();
            x.run(s.end);
            destroy.get(10, TimeUnit.SECONDS);

            assertThat(openInProvider()).as("%ses open when the destroy returned", span.noun).isZero();
            assertThat(handOver).isInstanceOf(WrongThreadException.class)
                    .hasMessage(s.target.describe() + ": " + span.end + " on thread \"X\", but the " + span.noun
                            + " is held by thread \"O\": a " + span.noun + " stays on the thread that began it ("
                            + span.start + " took " + span.lock + " for that thread)");
            assertThat(x.attempt(s.start)).hasMessage(s.target.describe() + " is being destroyed");
        }
    }

    @ParameterizedTest
    @EnumSource(Span.class)
    void oneHandedToAnotherThreadIsRefusedThereAndTheDestroyThenWaitsOnlyForItsOwnerToEndIt(Span span)
            throws Throwable {
        Opened s = open(span);
        try (Worker o = new Worker("O"); Worker x = new Worker("X")) {
            o.run(s.start);
            Throwable handOver = x.attempt(s.end);
            if (handOver != null) {
                o.run(s.end);
            }

            Future<?> destroy = quiesceOnAnotherThread(s.target);
            assertThat(finishes(destroy, 5_000)).as("the destroy returned, nothing being inside").isTrue();
            assertThat(openInProvider()).isZero();
            assertThat(handOver).isInstanceOf(WrongThreadException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Span.class)
    void aSecondStartInsideTheThreadsOwnIsRefusedSoTheDestroyWaitsForTheOneItHolds(Span span) throws Throwable {
        Opened s = open(span);
        try (Worker o = new Worker("O")) {
            o.run(s.start);
            Throwable nested = o.attempt(s.start);
            o.run(s.end);

            Future<?> destroy = quiesceOnAnotherThread(s.target);
            assertThat(finishes(destroy, 5_000)).as("the destroy returned").isTrue();
            assertThat(openInProvider()).as("%ses open when the destroy returned", span.noun).isZero();
            assertThat(nested).isInstanceOf(IllegalStateException.class)
                    .hasMessage(s.target.describe() + ": " + span.start + " inside this thread's own " + span.noun
                            + " (a second " + span.user + ", or a start without an end): " + span.lock
                            + " does not nest, so it would spin forever; end the " + span.noun + " first");
        }
    }

    @Test
    void theReadsAndTheNextOfABatchAreRefusedToAnyThreadButTheOneThatBeganIt() throws Throwable {
        NativeCq extended = countedExtendedCq();
        CqExPoller poller = cqVerbs.cqExPoller(extended);
        try (Worker o = new Worker("O"); Worker x = new Worker("X")) {
            assertThat(o.call(poller::startPoll)).isZero();
            long calls = global("watched_calls", 8).get(JAVA_LONG, 0);

            assertThat(x.attempt(poller::nextPoll)).isInstanceOf(WrongThreadException.class)
                    .hasMessageStartingWith(extended.describe() + ": ibv_next_poll on thread \"X\"");
            assertThat(x.attempt(poller::wrId)).isInstanceOf(WrongThreadException.class);
            assertThat(global("watched_calls", 8).get(JAVA_LONG, 0)).as("calls that reached the provider")
                    .isEqualTo(calls);
            assertThat(o.call(poller::wrId)).isEqualTo(9);
            o.run(poller::endPoll);
            assertThat(x.attempt(poller::nextPoll)).isInstanceOf(IllegalStateException.class)
                    .hasMessage(extended.describe() + ": ibv_next_poll outside a batch: ibv_start_poll first");
        }
    }

    @Test
    void aDestroyInsideTheThreadsOwnBatchIsRefusedInsteadOfWaitingForeverForItself() throws Throwable {
        NativeCq extended = countedExtendedCq();
        CqExPoller poller = cqVerbs.cqExPoller(extended);
        try (Worker o = new Worker("O")) {
            assertThat(o.call(poller::startPoll)).isZero();

            Throwable destroy = o.attempt(() -> extended.calls().quiesce());

            assertThat(destroy).isInstanceOf(IllegalStateException.class)
                    .hasMessage(extended.describe() + ": destroying it inside this thread's own batch would wait "
                            + "forever for that batch to end: end the batch first");
            assertThat(o.call(poller::nextPoll)).as("the batch goes on").isEqualTo(Errno.ENOENT.number());
            o.run(poller::endPoll);
            assertThat(o.call(poller::startPoll)).as("nothing was shut").isZero();
            o.run(poller::endPoll);
        }
    }

    @Test
    void theBuildersOfASessionAreRefusedToAnyThreadButTheOneThatBeganIt() throws Throwable {
        NativeQp extended = countedExtendedQp();
        QpExOps ops = qpVerbs.qpExOps(extended);
        try (Worker o = new Worker("O"); Worker x = new Worker("X")) {
            o.run(ops::wrStart);

            assertThat(x.attempt(() -> ops.wrId(7))).isInstanceOf(WrongThreadException.class)
                    .hasMessageStartingWith(extended.describe() + ": qpx->wr_id on thread \"X\"");
            assertThat(x.attempt(ops::send)).isInstanceOf(WrongThreadException.class)
                    .hasMessageStartingWith(extended.describe() + ": ibv_wr_send on thread \"X\"");
            o.run(ops::wrAbort);
            assertThat(o.attempt(ops::send)).isInstanceOf(IllegalStateException.class)
                    .hasMessage(extended.describe() + ": ibv_wr_send outside a session: ibv_wr_start first");
        }
    }

    /** {@code chain} at its full length, as a post takes it. */
    private static <W extends io.rdmaverbs.verbs.provider.WorkRequest> WorkRequestChain<W> chainOf(
            WorkRequestChain<W> chain) {
        chain.length(chain.capacity());
        return chain;
    }

    /** A UD QP on the fake whose posts are watched. */
    private NativeQp udQp() {
        return new NativeQp(provider, device.object(IbvQp.LAYOUT), context, QpType.UD, 0x44, QpCapabilities.of(8, 8),
                QpCapabilities.of(8, 8), fakeOps.find("fake_post_send_watched").orElseThrow(),
                fakeOps.find("fake_post_recv_watched").orElseThrow());
    }

    /** An address handle on the fake: memory no op reads, the watch stands for the provider reading it. */
    private NativeAh addressHandle() {
        NativePd pd = new NativePd(provider, device.object(IbvCq.LAYOUT), context);
        return new NativeAh(provider, device.object(IbvCq.LAYOUT), pd);
    }

    /** An extended CQ on the fake whose batch ops are watched and counted. */
    private NativeCq countedExtendedCq() throws Throwable {
        global("watched_open", 8).set(JAVA_LONG, 0, 0);
        MemorySegment cqEx = device.object(IbvCqEx.LAYOUT);
        fill("fake_count_cq_ex", cqEx);
        NativeCq extended = new NativeCq(provider, cqEx, context, 16, null, MemorySegment.NULL, MemorySegment.NULL);
        extended.extend(cqEx);
        return extended;
    }

    /** A QP with send ops on the fake whose session ops are watched and counted. */
    private NativeQp countedExtendedQp() throws Throwable {
        global("watched_open", 8).set(JAVA_LONG, 0, 0);
        MemorySegment qpEx = device.object(IbvQpEx.LAYOUT);
        fill("fake_fill_qp_ex", qpEx);
        fill("fake_count_qp_ex", qpEx);
        NativeQp extended = new NativeQp(provider, qpEx, context, QpType.RC, 0x33, QpCapabilities.of(8, 8),
                QpCapabilities.of(8, 8), MemorySegment.NULL, MemorySegment.NULL);
        extended.extend(new NativeQpExOps(provider, extended, qpEx, 1));
        return extended;
    }

    /** Batches or sessions the provider has begun and not ended. */
    private static long openInProvider() {
        return global("watched_open", 8).get(JAVA_LONG, 0);
    }

    /** The first step of a destroy of {@code handle}, on a thread of its own. */
    private static Future<?> quiesceOnAnotherThread(NativeHandle handle) {
        CallGuards calls = handle instanceof NativeCq c ? c.calls() : ((NativeQp) handle).calls();
        FutureTask<Void> destroy = new FutureTask<>(calls::quiesce, null);
        Thread.ofPlatform().name("destroy").daemon().start(destroy);
        return destroy;
    }

    /** Whether {@code task} finishes within {@code millis}; its failure is the test's. */
    private static boolean finishes(Future<?> task, long millis) throws Exception {
        try {
            task.get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException stillRunning) {
            return false;
        }
    }

    /** One named thread the test hands calls to, one at a time: which thread makes which call is the test's. */
    private static final class Worker implements AutoCloseable {

        /** A call that may throw anything. */
        @FunctionalInterface
        interface Call {
            void run() throws Throwable;
        }

        private final ExecutorService thread;

        Worker(String name) {
            thread = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name(name).daemon().unstarted(r));
        }

        <T> T call(Callable<T> call) throws Exception {
            return thread.submit(call).get(10, TimeUnit.SECONDS);
        }

        void run(Call call) throws Throwable {
            Throwable failed = attempt(call);
            if (failed != null) {
                throw failed;
            }
        }

        /** What {@code call} threw on this thread, or null. */
        @Nullable Throwable attempt(Call call) throws Exception {
            return thread.submit(() -> {
                try {
                    call.run();
                    return (Throwable) null;
                } catch (Throwable t) {
                    return t;
                }
            }).get(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            thread.shutdownNow();
        }
    }

    /** Calls {@code fake_ops.c}'s {@code function(object)}, which points the object's ops at watched ones. */
    private static void fill(String function, MemorySegment object) throws Throwable {
        Linker.nativeLinker().downcallHandle(fakeOps.find(function).orElseThrow(), FunctionDescriptor.ofVoid(ADDRESS))
                .invokeExact(object);
    }

    /** Runs {@code call} on a thread of its own until the test ends, keeping the messages of its refusals. */
    private void inLoop(Runnable call) {
        threads.add(Thread.ofPlatform().daemon().start(() -> {
            while (!stop.get()) {
                try {
                    call.run();
                } catch (IllegalStateException refused) {
                    refusals.add(refused.getMessage());
                }
            }
        }));
    }

    /** Returns once every thread has made calls, so that the step under test races calls in flight. */
    private void awaitCallsInFlight() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (global("watched_calls", 8).get(JAVA_LONG, 0) < 500L * threads.size()) {
            assertThat(System.nanoTime()).as("the threads got calls through").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    /** Tells the ops the object is gone, and lets the threads go on trying for a while. */
    private void declareFreed() throws InterruptedException {
        freed.set(JAVA_INT, 0, 1);
        long calls = global("watched_calls", 8).get(JAVA_LONG, 0);
        Thread.sleep(100);
        assertThat(global("watched_calls", 8).get(JAVA_LONG, 0)).as("calls that got in after the step")
                .isEqualTo(calls);
    }

    private static MemorySegment global(String name, long size) {
        return fakeOps.find(name).orElseThrow().reinterpret(size);
    }
}
