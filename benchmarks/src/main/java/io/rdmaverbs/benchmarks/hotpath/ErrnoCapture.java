package io.rdmaverbs.benchmarks.hotpath;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What capturing {@code errno} costs the data path: {@link RawDowncall}'s posts and arming with and
 * without {@code Linker.Option.captureCallState("errno")}, for each {@code scope} of {@link RawDowncall}.
 * The binding captured it there until 2026-12-03 for providers that fail with -1 and errno; none of
 * rdma-core's does for these verbs, which return the errno ({@code ibv_post_send(3)}), so the binding now
 * links them as the {@code ...Plain} benchmarks do: those are its floor.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class ErrnoCapture {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final FunctionDescriptor POST = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    private static final MethodHandle CAPTURED = LINKER.downcallHandle(POST,
            Linker.Option.captureCallState("errno"), Linker.Option.critical(false));
    private static final MethodHandle PLAIN = LINKER.downcallHandle(POST, Linker.Option.critical(false));
    private static final FunctionDescriptor NOTIFY = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);
    private static final MethodHandle NOTIFY_CAPTURED = LINKER.downcallHandle(NOTIFY,
            Linker.Option.captureCallState("errno"), Linker.Option.critical(false));
    private static final MethodHandle NOTIFY_PLAIN = LINKER.downcallHandle(NOTIFY, Linker.Option.critical(false));

    /** Which post: {@code post_send} or {@code post_recv}, its op, request and slots from {@link RawDowncall.Calls}. */
    @State(Scope.Thread)
    public static class Post {

        @Param({"post_send", "post_recv"})
        public String verb;

        MemorySegment op;
        MemorySegment wr;
        MemorySegment badWr;
        MemorySegment errno;

        @Setup(Level.Trial)
        public void pick(RawDowncall.Calls c) {
            boolean send = verb.equals("post_send");
            op = send ? c.postSend : c.postRecv;
            wr = send ? c.sendWr : c.recvWr;
            badWr = send ? c.sendBadWr : c.recvBadWr;
            errno = send ? c.sendErrno : c.recvErrno;
        }
    }

    @Benchmark
    public int postCaptured(Post p, RawDowncall.Calls c) throws Throwable {
        return (int) CAPTURED.invokeExact(p.op, p.errno, c.qp, p.wr, p.badWr);
    }

    @Benchmark
    public int postPlain(Post p, RawDowncall.Calls c) throws Throwable {
        return (int) PLAIN.invokeExact(p.op, c.qp, p.wr, p.badWr);
    }

    @Benchmark
    public int reqNotifyCaptured(RawDowncall.Calls c) throws Throwable {
        return (int) NOTIFY_CAPTURED.invokeExact(c.reqNotifyCq, c.errno, c.cq, 0);
    }

    @Benchmark
    public int reqNotifyPlain(RawDowncall.Calls c) throws Throwable {
        return (int) NOTIFY_PLAIN.invokeExact(c.reqNotifyCq, c.cq, 0);
    }
}
