package io.rdmaverbs.benchmarks.hotpath;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The floor of any FFM binding: one {@code invokeExact} of an address-less downcall handle on the op
 * pointer, {@code critical}, {@code errno} captured for notify and post (as the binding linked them
 * until 2026-12-03, and as issue 20's floor was measured; {@link ErrnoCapture} has them without, as the
 * binding links them since), and nothing else. Between this and {@link CLoop} is what the JDK's downcall
 * costs; between this and {@link ProviderCalls}, what the binding adds.
 *
 * <p>{@code scope} is the arena of the memory passed in: {@code global} (a bare address, which the
 * linker need not keep alive); {@code shared} (an {@code Arena.ofShared()} segment, as the binding's
 * completion buffers and work requests are, which the linker acquires and releases around every
 * call; errno goes to a per-thread automatic-arena slot, as the binding's {@code CallState}); or
 * {@code sharedErrnoInRequest}, the same but with the errno slot inside the request's own arena, so
 * that the linker acquires one arena per call instead of checking two.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class RawDowncall {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");

    private static final MethodHandle POLL_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), CRITICAL);
    private static final MethodHandle REQ_NOTIFY_CQ = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), ERRNO, CRITICAL);
    private static final MethodHandle POST = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), ERRNO, CRITICAL);

    /** Layout of one request block: the wr, its SGE at {@value}, the bad_wr slot and an errno slot behind it. */
    static final long REQUEST_SGE = 192;
    static final long REQUEST_BAD_WR = REQUEST_SGE + 16;
    static final long REQUEST_ERRNO = REQUEST_BAD_WR + 8;
    static final long COMPLETIONS = 1024;

    /** Not final: JMH subclasses its state classes. */
    @State(Scope.Thread)
    public static class Calls {

        @Param({"global", "shared", "sharedErrnoInRequest"})
        public String scope;

        MemorySegment pollCq;
        MemorySegment reqNotifyCq;
        MemorySegment postSend;
        MemorySegment postRecv;
        MemorySegment cq;
        MemorySegment qp;
        MemorySegment completions;
        MemorySegment sendWr;
        MemorySegment sendBadWr;
        MemorySegment recvWr;
        MemorySegment recvBadWr;
        MemorySegment errno;
        MemorySegment sendErrno;
        MemorySegment recvErrno;
        private Arena arena;

        @Setup(Level.Trial)
        public void prepare(FakeDevice d) {
            cq = d.cqPointer;
            qp = d.qpPointer;
            pollCq = HotPathLoops.op("c_poll_cq_op", cq);
            reqNotifyCq = HotPathLoops.op("c_req_notify_cq_op", cq);
            postSend = HotPathLoops.op("c_post_send_op", qp);
            postRecv = HotPathLoops.op("c_post_recv_op", qp);
            arena = Arena.ofShared();
            long errnoSize = Linker.Option.captureStateLayout().byteSize();
            MemorySegment send = arena.allocate(REQUEST_ERRNO + errnoSize, 8);
            MemorySegment recv = arena.allocate(REQUEST_ERRNO + errnoSize, 8);
            HotPathLoops.fillSendWr(send, send.asSlice(REQUEST_SGE), d.mr.segment(), d.mr.lkey());
            HotPathLoops.fillRecvWr(recv, recv.asSlice(REQUEST_SGE), d.mr.segment(), d.mr.lkey());
            MemorySegment wc = arena.allocate(COMPLETIONS, 8);
            boolean global = scope.equals("global");
            completions = global ? MemorySegment.ofAddress(wc.address()) : wc;
            sendWr = global ? MemorySegment.ofAddress(send.address()) : send;
            sendBadWr = global ? MemorySegment.ofAddress(send.address() + REQUEST_BAD_WR)
                    : send.asSlice(REQUEST_BAD_WR, 8);
            recvWr = global ? MemorySegment.ofAddress(recv.address()) : recv;
            recvBadWr = global ? MemorySegment.ofAddress(recv.address() + REQUEST_BAD_WR)
                    : recv.asSlice(REQUEST_BAD_WR, 8);
            // As the binding's per-thread CallState: an automatic arena, which the linker does not acquire.
            errno = Arena.ofAuto().allocate(Linker.Option.captureStateLayout());
            boolean inRequest = scope.equals("sharedErrnoInRequest");
            sendErrno = inRequest ? send.asSlice(REQUEST_ERRNO, errnoSize) : errno;
            recvErrno = inRequest ? recv.asSlice(REQUEST_ERRNO, errnoSize) : errno;
        }

        @TearDown(Level.Trial)
        public void free() {
            arena.close();
        }
    }

    @Benchmark
    public int poll1(Calls c) throws Throwable {
        return (int) POLL_CQ.invokeExact(c.pollCq, c.cq, 1, c.completions);
    }

    @Benchmark
    public int poll16(Calls c) throws Throwable {
        return (int) POLL_CQ.invokeExact(c.pollCq, c.cq, 16, c.completions);
    }

    @Benchmark
    public int reqNotify(Calls c) throws Throwable {
        return (int) REQ_NOTIFY_CQ.invokeExact(c.reqNotifyCq, c.errno, c.cq, 0);
    }

    @Benchmark
    public int postSend(Calls c) throws Throwable {
        return (int) POST.invokeExact(c.postSend, c.sendErrno, c.qp, c.sendWr, c.sendBadWr);
    }

    @Benchmark
    public int postRecv(Calls c) throws Throwable {
        return (int) POST.invokeExact(c.postRecv, c.recvErrno, c.qp, c.recvWr, c.recvBadWr);
    }
}
