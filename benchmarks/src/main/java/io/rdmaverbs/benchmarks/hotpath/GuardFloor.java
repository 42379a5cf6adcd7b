package io.rdmaverbs.benchmarks.hotpath;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a guard that passes bare addresses (no session for the linker to acquire) would cost at the
 * least, on the bare-address {@code poll_cq} downcall of {@link RawDowncall}: the two guards the Java
 * memory model allows without an asymmetric barrier. {@code ownerFlag}: the driving thread publishes
 * "in a call" and then reads the closer's flag, which needs store-load order (a volatile store: on x86 a
 * locked instruction), then clears it with a release store; {@code counter}: a compare-and-set in and a
 * get-and-add out, as the graph's own lifetime guard. Neither guards anything here; only the cost counts.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class GuardFloor {

    private static final MethodHandle POLL_CQ = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), Linker.Option.critical(false));
    private static final VarHandle IN_CALL;
    private static final VarHandle COUNT;

    static {
        try {
            IN_CALL = MethodHandles.lookup().findVarHandle(Calls.class, "inCall", boolean.class);
            COUNT = MethodHandles.lookup().findVarHandle(Calls.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Not final: JMH subclasses its state classes. */
    @State(Scope.Thread)
    public static class Calls {

        MemorySegment pollCq;
        MemorySegment cq;
        MemorySegment completions;
        volatile boolean inCall;
        volatile boolean closing;
        volatile int count;
        /* Kept reachable: completions is a bare address of it. */
        private MemorySegment memory;

        @Setup(Level.Trial)
        public void prepare(FakeDevice d) {
            cq = d.cqPointer;
            pollCq = HotPathLoops.op("c_poll_cq_op", d.cqPointer);
            memory = Arena.ofAuto().allocate(RawDowncall.COMPLETIONS, 8);
            completions = MemorySegment.ofAddress(memory.address());
        }
    }

    @Benchmark
    public int ownerFlag(Calls c) throws Throwable {
        IN_CALL.setVolatile(c, true);
        if (c.closing) {
            IN_CALL.setRelease(c, false);
            return -1;
        }
        try {
            return (int) POLL_CQ.invokeExact(c.pollCq, c.cq, 1, c.completions);
        } finally {
            IN_CALL.setRelease(c, false);
        }
    }

    @Benchmark
    public int counter(Calls c) throws Throwable {
        int s = c.count;
        if (s < 0 || !COUNT.weakCompareAndSet(c, s, s + 1)) {
            return -1;
        }
        try {
            return (int) POLL_CQ.invokeExact(c.pollCq, c.cq, 1, c.completions);
        } finally {
            COUNT.getAndAdd(c, -1);
        }
    }
}
