package io.rdmaverbs.verbs.scenario;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.rdmaverbs.verbs.CompletionPoller;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.WorkRequestBuilder;
import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;

import static io.rdmaverbs.verbs.scenario.Fixtures.CAPS;
import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An extended CQ's batch ({@code ibv_start_poll} to {@code ibv_end_poll}) and a session of the new post API
 * ({@code ibv_wr_start} to {@code ibv_wr_complete}) across threads. The provider holds the CQ's or the send
 * queue's lock from start to end (rxe and mlx5: a spinlock), so a start on another thread waits for the end,
 * the end and the calls in between are the starting thread's (another thread's are refused with a
 * {@link WrongThreadException}), and on that thread every verb that would take the lock again is refused
 * (it would spin on a lock its own thread holds). Both providers refuse the same way, before native code.
 */
final class ConfinementScenarios {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** How long a start on another thread is given to return while the batch or session is still open. */
    private static final Duration STILL_OPEN = Duration.ofMillis(300);
    private static final CompletionQueueSpec EXTENDED = CompletionQueueSpec.of(32)
            .withExtendedPolling(CompletionField.STANDARD);
    private static final Set<SendOpcode> SEND = EnumSet.of(SendOpcode.SEND);

    private ConfinementScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("a start on a second poller of an extended CQ waits for the batch another thread holds, "
                        + "and each batch reads a completion of its own", ConfinementScenarios::secondPollerWaits),
                new Scenario("a batch is its thread's: ibv_end_poll on another thread is refused with "
                        + "WrongThreadException and the batch stays open for its own thread to end",
                        ConfinementScenarios::batchRefusedToAnotherThread),
                new Scenario("inside a thread's own batch a second start (on a second poller too), ibv_poll_cq and "
                        + "ibv_req_notify_cq are refused before native code", ConfinementScenarios::insideOwnBatch),
                new Scenario("a start on a second builder of a QP waits for the session another thread holds",
                        ConfinementScenarios::secondBuilderWaits),
                new Scenario("a session is its thread's: ibv_wr_complete on another thread is refused with "
                        + "WrongThreadException and the session stays open for its own thread to end",
                        ConfinementScenarios::sessionRefusedToAnotherThread),
                new Scenario("inside a thread's own session a second start (on a second builder too) and "
                        + "ibv_post_send are refused before native code", ConfinementScenarios::insideOwnSession));
    }

    static void secondPollerWaits(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Traffic t = traffic(run, EXTENDED, Set.of())) {
            CompletionPoller first = t.cq.newPoller();
            CompletionPoller second = t.cq.newPoller();
            try (Other other = new Other()) {
                awaitBatch(first);
                long firstId;
                Future<Long> secondId;
                try {
                    secondId = other.start(() -> {
                        awaitBatch(second);
                        try {
                            return second.wrId();
                        } finally {
                            second.end();
                        }
                    });
                    String startOnTheOtherThread = finishes(secondId) ? "returned" : "waits";
                    steps.observed("ibv_start_poll on a second poller on another thread, the first batch open",
                            startOnTheOtherThread);
                    assertThat(startOnTheOtherThread).as("the second poller's start while the first batch is open")
                            .isEqualTo("waits");
                    firstId = first.wrId();
                } finally {
                    first.end();
                }
                long secondsId = Other.get(secondId);
                steps.observed("the second batch, once the first ended, read another completion",
                        secondsId != firstId ? "yes" : "no");
                assertThat(secondsId).as("the completion the second batch read").isNotEqualTo(firstId);
            }
        }
    }

    static void batchRefusedToAnotherThread(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Traffic t = traffic(run, EXTENDED, Set.of())) {
            CompletionPoller poller = t.cq.newPoller();
            try (Other other = new Other()) {
                awaitBatch(poller);
                try {
                    steps.rejected("ibv_end_poll on another thread than the batch's", WrongThreadException.class,
                            () -> other.run(poller::end));
                    steps.rejected("ibv_wc_read_* on another thread than the batch's", WrongThreadException.class,
                            () -> other.run(poller::opcode));
                    steps.ok("the batch's completion read on its own thread",
                            () -> assertThat(poller.status()).isEqualTo(WcStatus.SUCCESS));
                    steps.ok("ibv_end_poll on the batch's own thread", poller::end);
                } finally {
                    if (poller.inBatch()) {
                        poller.end();
                    }
                }
            }
        }
    }

    static void insideOwnBatch(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Traffic t = traffic(run, EXTENDED, Set.of())) {
            CompletionPoller first = t.cq.newPoller();
            CompletionPoller second = t.cq.newPoller();
            try (WorkCompletions wc = t.cq.newWorkCompletions(4)) {
                awaitBatch(first);
                try {
                    steps.rejected("ibv_start_poll on a second poller inside the thread's own batch",
                            IllegalStateException.class, second::start);
                    steps.rejected("ibv_poll_cq inside the thread's own batch", IllegalStateException.class,
                            () -> t.cq.poll(wc));
                    steps.rejected("ibv_req_notify_cq inside the thread's own batch", IllegalStateException.class,
                            () -> t.cq.requestNotification(false));
                    steps.ok("ibv_end_poll", first::end);
                } finally {
                    if (first.inBatch()) {
                        first.end();
                    }
                }
                steps.ok("ibv_poll_cq once the batch ended", () -> t.cq.poll(wc));
            }
        }
    }

    static void secondBuilderWaits(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Traffic t = traffic(run, CompletionQueueSpec.of(32), SEND)) {
            WorkRequestBuilder first = t.a.newWorkRequestBuilder(1);
            WorkRequestBuilder second = t.a.newWorkRequestBuilder(1);
            try (Other other = new Other()) {
                steps.ok("ibv_wr_start", first::start);
                Future<Void> secondSession;
                try {
                    secondSession = other.start(() -> {
                        second.start();
                        second.abort();
                        return null;
                    });
                    String startOnTheOtherThread = finishes(secondSession) ? "returned" : "waits";
                    steps.observed("ibv_wr_start on a second builder on another thread, the first session open",
                            startOnTheOtherThread);
                    assertThat(startOnTheOtherThread).as("the second builder's start while the first session is open")
                            .isEqualTo("waits");
                } finally {
                    first.abort();
                }
                steps.ok("the second builder's session, once the first ended", () -> Other.get(secondSession));
            }
        }
    }

    static void sessionRefusedToAnotherThread(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Traffic t = traffic(run, CompletionQueueSpec.of(32), SEND)) {
            WorkRequestBuilder builder = t.a.newWorkRequestBuilder(1);
            try (Other other = new Other()) {
                steps.ok("ibv_wr_start", builder::start);
                try {
                    steps.rejected("ibv_wr_complete on another thread than the session's", WrongThreadException.class,
                            () -> other.run(builder::complete));
                    steps.rejected("ibv_wr_send on another thread than the session's", WrongThreadException.class,
                            () -> other.run(builder::send));
                    steps.ok("ibv_wr_send .. ibv_wr_complete on the session's own thread",
                            () -> builder.wrId(7).flags(SendFlag.SIGNALED).send().sge(t.buffer, 0, 64).complete());
                } finally {
                    if (builder.started()) {
                        builder.abort();
                    }
                }
                try (WorkCompletions wc = t.cq.newWorkCompletions(1)) {
                    steps.ok("the session's send completes", () -> Fixtures.pollFor(t.cq, wc, 1, WAIT));
                }
            }
        }
    }

    static void insideOwnSession(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Traffic t = traffic(run, CompletionQueueSpec.of(32), SEND)) {
            WorkRequestBuilder first = t.a.newWorkRequestBuilder(1);
            WorkRequestBuilder second = t.a.newWorkRequestBuilder(1);
            steps.ok("ibv_wr_start", first::start);
            try {
                steps.rejected("ibv_wr_start on a second builder inside the thread's own session",
                        IllegalStateException.class, second::start);
                steps.rejected("ibv_post_send inside the thread's own session", IllegalStateException.class,
                        () -> t.a.postSend(t.send));
                steps.ok("ibv_wr_abort", first::abort);
            } finally {
                if (first.started()) {
                    first.abort();
                }
            }
            steps.ok("ibv_post_send once the session ended", () -> t.a.postSend(t.send));
        }
    }

    /** A connected pair on one CQ, a buffer, and its requests (closed with it). */
    private record Traffic(CompletionQueue cq, QueuePair a, MemoryRegion buffer, SendRequest send,
            ReceiveRequest recv) implements AutoCloseable {

        @Override
        public void close() {
            send.close();
            recv.close();
        }
    }

    /**
     * An RC pair on one CQ of {@code cqSpec}; for an extended CQ, two sends from a to b, so that four
     * completions come; a send request left to post.
     */
    private static Traffic traffic(ScenarioRun run, CompletionQueueSpec cqSpec, Set<SendOpcode> sendOps)
            throws Exception {
        Steps steps = run.steps();
        DataPathScenarios.Pair p = DataPathScenarios.pair(run, cqSpec, CAPS, sendOps);
        MemoryRegion buffer = steps.make("ibv_reg_mr", () -> p.pd().allocateMemory(128, LOCAL, "buffer"));
        SendRequest send = p.a().newSendRequest(1).wrId(1).single(buffer, 0, 64);
        ReceiveRequest recv = p.b().newReceiveRequest(1).single(buffer, 64, 64);
        for (int i = 0; i < 2; i++) {
            int n = i;
            steps.ok("ibv_post_recv", () -> p.b().postReceive(recv.wrId(10 + n)));
        }
        if (cqSpec.isExtended()) {
            for (int i = 0; i < 2; i++) {
                int n = i;
                steps.ok("ibv_post_send", () -> p.a().postSend(send.wrId(1 + n)));
            }
        }
        return new Traffic(p.cq(), p.a(), buffer, send, recv);
    }

    /** Starts batches on {@code poller} until one finds a completion; the batch is then open. */
    private static void awaitBatch(CompletionPoller poller) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!poller.start()) {
            if (Thread.interrupted()) {
                throw new InterruptedException("waiting for a completion");
            }
            assertThat(System.nanoTime()).as("a completion within %s", WAIT).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** Whether {@code task} ended (returning or throwing) within {@link #STILL_OPEN}. */
    private static boolean finishes(Future<?> task) throws InterruptedException {
        try {
            task.get(STILL_OPEN.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException ended) {
            return true;
        } catch (TimeoutException stillRunning) {
            return false;
        }
    }

    /** A second thread of one scenario; closing it interrupts what still runs there and waits for it. */
    private static final class Other implements AutoCloseable {

        private final ExecutorService thread = Executors.newSingleThreadExecutor(
                r -> Thread.ofPlatform().name("scenario-other").daemon(true).unstarted(r));

        <T> Future<T> start(Callable<T> call) {
            return thread.submit(call);
        }

        void run(Steps.Action call) throws Exception {
            get(start(() -> {
                call.run();
                return null;
            }));
        }

        /** {@code task}'s value, or what it threw as thrown here. */
        static <T> T get(Future<T> task) throws Exception {
            try {
                return task.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Exception cause) {
                    throw cause;
                }
                if (e.getCause() instanceof Error cause) {
                    throw cause;
                }
                throw e;
            }
        }

        @Override
        public void close() throws InterruptedException {
            thread.shutdownNow();
            assertThat(thread.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("the second thread ended")
                    .isTrue();
        }
    }
}
