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

import io.rdmaverbs.verbs.ReceiveBatch;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-WR cost of a chain of {@value #CHAIN} work requests posted in one call, through the API
 * ({@code QueuePair.postSend(SendBatch)}, {@code postReceive(ReceiveBatch)}), the provider SPI, one raw
 * FFM downcall of the same chain (the floor: bare addresses, no guard, no check) and from C
 * ({@code hot_path_loops.c}: the same chain, linked through {@code next}, posted by
 * {@code ibv_post_send}), in the same JMH run, on the same QP of {@code libfakeverbs.so} whose posts
 * walk the chain reading every WR and SGE. JMH divides by the WRs an invocation posts, so every
 * figure is nanoseconds per WR. API / C splits into floor / C (what any FFM binding pays) and
 * API / floor (what this one adds).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class BatchCalls {

    static final int CHAIN = 16;
    /** Chains per C downcall: the downcall itself is spread over this many posts. */
    static final int C_CHAINS = 1_000;
    /** As {@link RawDowncall}'s: {@code critical}, errno captured (the binding until 2026-12-03). */
    private static final MethodHandle POST = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Linker.Option.captureCallState("errno"),
            Linker.Option.critical(false));
    /** {@code critical}, no errno: the binding since (the posts return the errno). */
    private static final MethodHandle POST_NO_ERRNO = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Linker.Option.critical(false));
    /** One chain slot: the WR, its SGE at {@link RawDowncall#REQUEST_SGE}; {@code next} is at 8 in both structs. */
    private static final long SLOT = 256;
    private static final long NEXT = 8;

    /**
     * {@value #CHAIN} SENDs and {@value #CHAIN} receives as the C loop builds them, linked once through
     * {@code next}, passed by bare address as the binding passes its chains. Not final: JMH subclasses it.
     */
    @State(Scope.Thread)
    public static class RawChains {

        MemorySegment postSend;
        MemorySegment postRecv;
        MemorySegment qp;
        MemorySegment send;
        MemorySegment recv;
        MemorySegment badWr;
        MemorySegment errno;
        private Arena arena;

        @Setup(Level.Trial)
        public void link(FakeDevice d) {
            qp = d.qpPointer;
            postSend = HotPathLoops.op("c_post_send_op", qp);
            postRecv = HotPathLoops.op("c_post_recv_op", qp);
            arena = Arena.ofShared();
            MemorySegment sends = arena.allocate(SLOT * CHAIN, 8);
            MemorySegment recvs = arena.allocate(SLOT * CHAIN, 8);
            for (int i = 0; i < CHAIN; i++) {
                MemorySegment s = sends.asSlice(i * SLOT, SLOT);
                MemorySegment r = recvs.asSlice(i * SLOT, SLOT);
                HotPathLoops.fillSendWr(s, s.asSlice(RawDowncall.REQUEST_SGE), d.mr.segment(), d.mr.lkey());
                HotPathLoops.fillRecvWr(r, r.asSlice(RawDowncall.REQUEST_SGE), d.mr.segment(), d.mr.lkey());
                s.set(JAVA_LONG, 0, i);
                r.set(JAVA_LONG, 0, i);
                if (i + 1 < CHAIN) {
                    s.set(ADDRESS, NEXT, sends.asSlice((i + 1) * SLOT));
                    r.set(ADDRESS, NEXT, recvs.asSlice((i + 1) * SLOT));
                }
            }
            send = MemorySegment.ofAddress(sends.address());
            recv = MemorySegment.ofAddress(recvs.address());
            badWr = MemorySegment.ofAddress(arena.allocate(ADDRESS).address());
            errno = MemorySegment.ofAddress(arena.allocate(Linker.Option.captureStateLayout()).address())
                    .reinterpret(Linker.Option.captureStateLayout().byteSize());
        }

        @TearDown(Level.Trial)
        public void free() {
            arena.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public void apiSendChain(FakeDevice d) {
        d.qp.postSend(d.sendChain);
    }

    /** The provider SPI alone: the native provider's chain post, without the API's guard and region checks. */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public void providerSendChain(FakeDevice d) {
        d.qpVerbs.postSend(d.rawQp, d.rawSendChain);
    }

    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public void apiRecvChain(FakeDevice d) {
        d.qp.postReceive(d.receiveChain);
    }

    /**
     * The receive refill of a ring: every request given a new id and its slot of the region again before the
     * post, as a completion loop does. Ids and an entry moved within its region leave the batch's remembered
     * checks standing (PostChecks), so this costs the setters over {@link #apiRecvChain}, not a walk.
     */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public void apiRecvChainRefilled(FakeDevice d) {
        ReceiveBatch batch = d.receiveChain;
        for (int i = 0; i < CHAIN; i++) {
            batch.get(i).wrId(d.nextWrId++).segment(0, d.mr, (long) i * FakeDevice.MESSAGE, FakeDevice.MESSAGE);
        }
        d.qp.postReceive(batch);
    }

    /** The provider SPI alone, receives: what the API's receive chain adds is the difference. */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public void providerRecvChain(FakeDevice d) {
        d.qpVerbs.postRecv(d.rawQp, d.rawRecvChain);
    }

    /** The raw FFM floor of a send chain: one critical downcall of {@code post_send} on bare addresses. */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public int rawSendChain(RawChains c) throws Throwable {
        return (int) POST.invokeExact(c.postSend, c.errno, c.qp, c.send, c.badWr);
    }

    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public int rawRecvChain(RawChains c) throws Throwable {
        return (int) POST.invokeExact(c.postRecv, c.errno, c.qp, c.recv, c.badWr);
    }

    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public int rawSendChainNoErrno(RawChains c) throws Throwable {
        return (int) POST_NO_ERRNO.invokeExact(c.postSend, c.qp, c.send, c.badWr);
    }

    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public int rawRecvChainNoErrno(RawChains c) throws Throwable {
        return (int) POST_NO_ERRNO.invokeExact(c.postRecv, c.qp, c.recv, c.badWr);
    }

    @Benchmark
    @OperationsPerInvocation(CHAIN * C_CHAINS)
    public long cSendChain(FakeDevice d) {
        return HotPathLoops.postSendChain(d.qpPointer, d.mr.segment(), d.mr.lkey(), CHAIN, C_CHAINS);
    }

    @Benchmark
    @OperationsPerInvocation(CHAIN * C_CHAINS)
    public long cRecvChain(FakeDevice d) {
        return HotPathLoops.postRecvChain(d.qpPointer, d.mr.segment(), d.mr.lkey(), CHAIN, C_CHAINS);
    }
}
