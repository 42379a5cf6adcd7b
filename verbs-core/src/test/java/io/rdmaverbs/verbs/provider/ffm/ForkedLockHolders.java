package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.provider.CqExPoller;
import io.rdmaverbs.verbs.provider.QpExOps;
import io.rdmaverbs.verbs.provider.SendWr;

/**
 * Run in a JVM of its own by {@link CriticalDowncallTest}, one scenario per JVM, on {@code fake_ops.c}'s
 * locking ops (a CQ spinlock from start_poll to end_poll, a send-queue spinlock from wr_start to wr_complete,
 * as rxe and mlx5 take them). Prints {@code <scenario> ok} when it got through; a JVM that hangs is the
 * parent's to kill.
 *
 * <ul>
 * <li>{@code start_poll}, {@code poll_cq}, {@code req_notify_cq}, {@code wr_start}, {@code post_send}: the main
 *     thread holds a batch (or a session); a second thread calls the verb, which takes the same lock; then the
 *     main thread stops the JVM at a safepoint ({@code System.gc()}) and ends its batch. A second thread
 *     spinning for the lock inside a critical downcall never reaches the safepoint, so the safepoint, and the
 *     JVM, never complete (issue 20).</li>
 * <li>{@code own-thread}: the holder itself calls each verb that takes the lock, a second start and the
 *     destroy's quiesce: each must be refused in Java (in C each would spin on a lock its own thread holds).</li>
 * <li>{@code error-in-wr-start}: an {@code Error} thrown between taking the session and returning from
 *     {@code wrStart} (here: the heap is full when {@code wr_start}'s holder class is first loaded, after the
 *     session was taken); the session must not stay held: the next start succeeds, the destroy returns.</li>
 * </ul>
 */
public final class ForkedLockHolders {

    private final NativeVerbsProvider provider = NativeVerbsProvider.load();
    private final SymbolLookup fake;
    private final NativeContext context;
    private final FakeVerbsContext device;

    private ForkedLockHolders(SymbolLookup fake) {
        this.fake = fake;
        this.device = new FakeVerbsContext(Arena.ofShared());
        this.context = device.handle(provider, "rxe0");
    }

    public static void main(String[] args) throws Throwable {
        SymbolLookup fake = SymbolLookup.libraryLookup(Path.of(args[0]), Arena.global());
        ForkedLockHolders run = new ForkedLockHolders(fake);
        run.fill("fake_init_locks", MemorySegment.NULL);
        String scenario = args[1];
        switch (scenario) {
            case "start_poll" -> run.whileABatchIsHeld(poller -> {
                if (poller.startPoll() == 0) {
                    poller.endPoll();
                }
            });
            case "poll_cq" -> run.whileABatchIsHeld(run::pollCq);
            case "req_notify_cq" -> run.whileABatchIsHeld(
                    poller -> run.provider.completionVerbs().reqNotifyCq(run.lastCq, false));
            case "wr_start" -> run.whileASessionIsHeld(ops -> {
                ops.wrStart();
                ops.wrComplete();
            });
            case "post_send" -> run.whileASessionIsHeld(ops -> run.provider.queuePairVerbs().postSend(run.lastQp,
                    run.provider.queuePairVerbs().newSendWr(1)));
            case "own-thread" -> run.ownThread();
            case "error-in-wr-start" -> run.errorInWrStart();
            default -> throw new IllegalArgumentException(scenario);
        }
        System.out.println(scenario + " ok");
    }

    /** A call on the object another thread holds a batch or session of. */
    @FunctionalInterface
    private interface Waiter<T> {
        void call(T object) throws Throwable;
    }

    /** A call that may throw anything. */
    @FunctionalInterface
    private interface Action {
        void run() throws Throwable;
    }

    private NativeCq lastCq;
    private NativeQp lastQp;

    private void whileABatchIsHeld(Waiter<CqExPoller> waiter) throws Throwable {
        CqExPoller poller = lockingCq();
        check(poller.startPoll() == 0, "the main thread's batch began");
        Thread second = startWaiting(() -> waiter.call(poller));
        System.gc();
        poller.endPoll();
        awaitEnd(second);
    }

    private void whileASessionIsHeld(Waiter<QpExOps> waiter) throws Throwable {
        QpExOps ops = lockingQp();
        ops.wrStart();
        Thread second = startWaiting(() -> waiter.call(ops));
        System.gc();
        ops.wrAbort();
        awaitEnd(second);
    }

    private void pollCq(CqExPoller ignored) {
        try (WorkCompletions wc = provider.completionVerbs().newWorkCompletions(1)) {
            provider.completionVerbs().pollCq(lastCq, wc, 1);
        }
    }

    private void ownThread() throws Throwable {
        CqExPoller poller = lockingCq();
        List<String> refusals = new ArrayList<>();
        check(poller.startPoll() == 0, "the batch began");
        try (WorkCompletions wc = provider.completionVerbs().newWorkCompletions(1)) {
            refusals.add(refusal(() -> provider.completionVerbs().pollCq(lastCq, wc, 1)));
        }
        refusals.add(refusal(() -> provider.completionVerbs().reqNotifyCq(lastCq, false)));
        refusals.add(refusal(poller::startPoll));
        refusals.add(refusal(() -> lastCq.calls().quiesce()));
        poller.endPoll();
        QpExOps ops = lockingQp();
        ops.wrStart();
        try (SendWr wr = provider.queuePairVerbs().newSendWr(1)) {
            refusals.add(refusal(() -> provider.queuePairVerbs().postSend(lastQp, wr)));
        }
        refusals.add(refusal(ops::wrStart));
        refusals.add(refusal(() -> lastQp.calls().quiesce()));
        ops.wrAbort();
        for (String r : refusals) {
            System.out.println("refused=" + r);
        }
    }

    private void errorInWrStart() throws Throwable {
        // Links what the error path runs (the lock's take, release and refusals) before the heap is full, through
        // a CQ's batch: wr_start's holder class stays uninitialised.
        CqExPoller warm = lockingCq();
        check(warm.startPoll() == 0, "a batch began");
        warm.endPoll();
        QpExOps ops = lockingQp();
        check(refusal(ops::wrAbort) != null, "an end without a start is refused");
        // Interned now, so that wrStart's own use of the literal allocates nothing once the heap is full.
        check(!"ibv_wr_start".isEmpty(), "the verb's name is interned");
        Throwable first = null;
        Throwable second = null;
        List<Object> filler = new ArrayList<>();
        try {
            for (int size = 1 << 20; size > 16; ) {
                try {
                    filler.add(new byte[size]);
                } catch (OutOfMemoryError full) {
                    size /= 2;
                }
            }
            try {
                ops.wrStart();   // the first call loads wr_start's holder class, which needs the heap
            } catch (Throwable t) {
                first = t;
            }
        } finally {
            filler = null;
        }
        System.gc();
        try {
            ops.wrStart();
        } catch (Throwable t) {
            second = t;
        }
        System.out.println("first=" + (first == null ? "none" : first.getClass().getName()));

        System.out.println("second=" + (second == null ? "none" : second.getClass().getName()));
        if (second == null) {
            ops.wrAbort();
        }
        Thread destroy = Thread.ofPlatform().daemon().start(() -> lastQp.calls().quiesce());
        destroy.join(TimeUnit.SECONDS.toMillis(5));
        System.out.println("destroy=" + (destroy.isAlive() ? "waits" : "returned"));
    }

    /** An extended CQ whose start_poll takes a spinlock until end_poll, and whose poll and notify take it too. */
    private CqExPoller lockingCq() throws Throwable {
        MemorySegment cqEx = device.object(IbvCqEx.LAYOUT);
        fill("fake_lock_cq_ex", cqEx);
        lastCq = new NativeCq(provider, cqEx, context, 16, null, op("fake_poll_cq_locking"),
                op("fake_req_notify_cq_locking"));
        lastCq.extend(cqEx);
        return provider.completionVerbs().cqExPoller(lastCq);
    }

    /** A QP with send ops whose wr_start takes a spinlock until wr_complete, and whose post_send takes it too. */
    private QpExOps lockingQp() throws Throwable {
        MemorySegment qpEx = device.object(IbvQpEx.LAYOUT);
        fill("fake_fill_qp_ex", qpEx);
        fill("fake_lock_qp_ex", qpEx);
        lastQp = new NativeQp(provider, qpEx, context, QpType.RC, 0x66, QpCapabilities.of(8, 8),
                QpCapabilities.of(8, 8), op("fake_post_send_locking"), MemorySegment.NULL);
        lastQp.extend(new NativeQpExOps(provider, lastQp, qpEx, 1));
        return provider.queuePairVerbs().qpExOps(lastQp);
    }

    /** Starts {@code call} on a second thread and gives it time to reach the lock it waits for. */
    private static Thread startWaiting(Action call) throws InterruptedException {
        Thread t = Thread.ofPlatform().name("second").daemon().start(() -> {
            try {
                call.run();
            } catch (Throwable e) {
                e.printStackTrace();
                System.exit(3);
            }
        });
        Thread.sleep(200);
        return t;
    }

    private static void awaitEnd(Thread second) throws InterruptedException {
        second.join(TimeUnit.SECONDS.toMillis(10));
        check(!second.isAlive(), "the second thread got the lock once the first let go");
    }

    private static String refusal(Action call) {
        try {
            call.run();
        } catch (Throwable t) {
            return t.getClass().getSimpleName() + ": " + t.getMessage();
        }
        throw new AssertionError("not refused");
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    private MemorySegment op(String name) {
        return fake.find(name).orElseThrow();
    }

    private void fill(String function, MemorySegment object) throws Throwable {
        MemorySegment f = op(function);
        if (object.equals(MemorySegment.NULL)) {
            Linker.nativeLinker().downcallHandle(f, FunctionDescriptor.ofVoid()).invokeExact();
        } else {
            Linker.nativeLinker().downcallHandle(f, FunctionDescriptor.ofVoid(ADDRESS)).invokeExact(object);
        }
    }
}
