package io.rdmaverbs.benchmarks.hotpath;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The floor of the binding as it passes memory since 2026-12-08: {@link RawDowncall}'s bare-address
 * downcalls with their pointer arguments passed as {@code long}s (LP64: a C pointer and a {@code long}
 * travel in the same register), beside the same calls on bare segments (no errno captured in either,
 * as the binding links these verbs): what the linker's per-argument segment checks cost. One post stands
 * for both (the same shape).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class LongAddresses {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    private static final MethodHandle POLL_SEG = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), CRITICAL);
    private static final MethodHandle POLL_LONG = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG), CRITICAL);
    private static final MethodHandle POST_SEG = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), CRITICAL);
    private static final MethodHandle POST_LONG = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), CRITICAL);
    private static final MethodHandle NOTIFY_SEG = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), CRITICAL);
    private static final MethodHandle NOTIFY_LONG = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT), CRITICAL);

    /** Not final: JMH subclasses its state classes. */
    @State(Scope.Thread)
    public static class Calls {

        MemorySegment pollCq;
        MemorySegment reqNotifyCq;
        MemorySegment postRecv;
        MemorySegment cq;
        MemorySegment qp;
        MemorySegment completions;
        MemorySegment recvWr;
        MemorySegment recvBadWr;
        long cqAddress;
        long qpAddress;
        long completionsAddress;
        long recvWrAddress;
        long recvBadWrAddress;
        private Arena arena;

        @Setup(Level.Trial)
        public void prepare(FakeDevice d) {
            cq = d.cqPointer;
            qp = d.qpPointer;
            pollCq = HotPathLoops.op("c_poll_cq_op", cq);
            reqNotifyCq = HotPathLoops.op("c_req_notify_cq_op", cq);
            postRecv = HotPathLoops.op("c_post_recv_op", qp);
            arena = Arena.ofShared();
            MemorySegment recv = arena.allocate(RawDowncall.REQUEST_BAD_WR + 8, 8);
            HotPathLoops.fillRecvWr(recv, recv.asSlice(RawDowncall.REQUEST_SGE), d.mr.segment(), d.mr.lkey());
            completions = MemorySegment.ofAddress(arena.allocate(RawDowncall.COMPLETIONS, 8).address());
            recvWr = MemorySegment.ofAddress(recv.address());
            recvBadWr = MemorySegment.ofAddress(recv.address() + RawDowncall.REQUEST_BAD_WR);
            cqAddress = cq.address();
            qpAddress = qp.address();
            completionsAddress = completions.address();
            recvWrAddress = recvWr.address();
            recvBadWrAddress = recvBadWr.address();
        }

        @TearDown(Level.Trial)
        public void free() {
            arena.close();
        }
    }

    @Benchmark
    public int poll1Segments(Calls c) throws Throwable {
        return (int) POLL_SEG.invokeExact(c.pollCq, c.cq, 1, c.completions);
    }

    @Benchmark
    public int poll1Longs(Calls c) throws Throwable {
        return (int) POLL_LONG.invokeExact(c.pollCq, c.cqAddress, 1, c.completionsAddress);
    }

    @Benchmark
    public int reqNotifySegments(Calls c) throws Throwable {
        return (int) NOTIFY_SEG.invokeExact(c.reqNotifyCq, c.cq, 0);
    }

    @Benchmark
    public int reqNotifyLongs(Calls c) throws Throwable {
        return (int) NOTIFY_LONG.invokeExact(c.reqNotifyCq, c.cqAddress, 0);
    }

    @Benchmark
    public int postRecvSegments(Calls c) throws Throwable {
        return (int) POST_SEG.invokeExact(c.postRecv, c.qp, c.recvWr, c.recvBadWr);
    }

    @Benchmark
    public int postRecvLongs(Calls c) throws Throwable {
        return (int) POST_LONG.invokeExact(c.postRecv, c.qpAddress, c.recvWrAddress, c.recvBadWrAddress);
    }
}
