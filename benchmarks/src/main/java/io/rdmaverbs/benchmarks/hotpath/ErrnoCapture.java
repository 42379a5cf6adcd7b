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
 * What capturing {@code errno} costs a post: {@link RawDowncall#postSend} with and without
 * {@code Linker.Option.captureCallState("errno")}, for each {@code scope} of {@link RawDowncall}.
 * The binding captures it on posts and notify because some providers fail with -1 and errno; this
 * is the price of reading it correctly.
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

    @Benchmark
    public int postSendCaptured(RawDowncall.Calls c) throws Throwable {
        return (int) CAPTURED.invokeExact(c.postSend, c.sendErrno, c.qp, c.sendWr, c.sendBadWr);
    }

    @Benchmark
    public int postSendPlain(RawDowncall.Calls c) throws Throwable {
        return (int) PLAIN.invokeExact(c.postSend, c.qp, c.sendWr, c.sendBadWr);
    }
}
