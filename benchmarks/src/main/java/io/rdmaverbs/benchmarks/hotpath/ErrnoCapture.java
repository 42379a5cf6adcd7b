package io.rdmaverbs.benchmarks.hotpath;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
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

    @Benchmark
    public int postSendCaptured(RawDowncall.Calls c) throws Throwable {
        return (int) CAPTURED.invokeExact(c.postSend, c.sendErrno, c.qp, c.sendWr, c.sendBadWr);
    }

    @Benchmark
    public int postSendPlain(RawDowncall.Calls c) throws Throwable {
        return (int) PLAIN.invokeExact(c.postSend, c.qp, c.sendWr, c.sendBadWr);
    }

    @Benchmark
    public int postRecvCaptured(RawDowncall.Calls c) throws Throwable {
        return (int) CAPTURED.invokeExact(c.postRecv, c.recvErrno, c.qp, c.recvWr, c.recvBadWr);
    }

    @Benchmark
    public int postRecvPlain(RawDowncall.Calls c) throws Throwable {
        return (int) PLAIN.invokeExact(c.postRecv, c.qp, c.recvWr, c.recvBadWr);
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
