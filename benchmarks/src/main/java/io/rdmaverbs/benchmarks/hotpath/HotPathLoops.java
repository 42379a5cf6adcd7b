package io.rdmaverbs.benchmarks.hotpath;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import io.rdmaverbs.benchmarks.NativeFixtures;

/**
 * The functions of {@code hot_path_loops.c} (the C baseline loops and the op-pointer getters) and the
 * two globals of {@code fake_verbs.c} that name the objects the Java side created, one holder per
 * symbol. The loops run thousands of calls per downcall, so the downcall itself does not count.
 */
final class HotPathLoops {

    private static final Linker LINKER = Linker.nativeLinker();
    /* The loops are long-running but never block or call back: no thread-state transition needed. */
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    private HotPathLoops() {
    }

    private static final class Library {
        static final SymbolLookup LOOPS = SymbolLookup.libraryLookup(NativeFixtures.file("libhotpathloops.so"),
                Arena.global());
    }

    private static MethodHandle function(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(Library.LOOPS.find(name).orElseThrow(), descriptor, options);
    }

    private static final class c_poll_cq {
        static final MethodHandle HANDLE = function("c_poll_cq",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_LONG), CRITICAL);
    }

    private static final class c_req_notify_cq {
        static final MethodHandle HANDLE = function("c_req_notify_cq",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG), CRITICAL);
    }

    private static final class c_post_send {
        static final MethodHandle HANDLE = function("c_post_send",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG), CRITICAL);
    }

    private static final class c_post_recv {
        static final MethodHandle HANDLE = function("c_post_recv",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG), CRITICAL);
    }

    private static final class c_post_send_chain {
        static final MethodHandle HANDLE = function("c_post_send_chain",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_LONG), CRITICAL);
    }

    private static final class c_post_recv_chain {
        static final MethodHandle HANDLE = function("c_post_recv_chain",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, JAVA_LONG), CRITICAL);
    }

    private static final class op_getter {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS);
    }

    private static final class c_fill_send_wr {
        static final MethodHandle HANDLE = function("c_fill_send_wr",
                FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    }

    private static final class c_fill_recv_wr {
        static final MethodHandle HANDLE = function("c_fill_recv_wr",
                FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    }

    static long pollCq(MemorySegment cq, int batch, long iterations) {
        try {
            return (long) c_poll_cq.HANDLE.invokeExact(cq, batch, iterations);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static long reqNotifyCq(MemorySegment cq, long iterations) {
        try {
            return (long) c_req_notify_cq.HANDLE.invokeExact(cq, iterations);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static long postSend(MemorySegment qp, MemorySegment buffer, int lkey, long iterations) {
        try {
            return (long) c_post_send.HANDLE.invokeExact(qp, buffer, lkey, iterations);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static long postRecv(MemorySegment qp, MemorySegment buffer, int lkey, long iterations) {
        try {
            return (long) c_post_recv.HANDLE.invokeExact(qp, buffer, lkey, iterations);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Posts a chain of {@code length} one-SGE SENDs {@code iterations} times from C. */
    static long postSendChain(MemorySegment qp, MemorySegment buffer, int lkey, int length, long iterations) {
        try {
            return (long) c_post_send_chain.HANDLE.invokeExact(qp, buffer, lkey, length, iterations);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Posts a chain of {@code length} one-SGE receives {@code iterations} times from C. */
    static long postRecvChain(MemorySegment qp, MemorySegment buffer, int lkey, int length, long iterations) {
        try {
            return (long) c_post_recv_chain.HANDLE.invokeExact(qp, buffer, lkey, length, iterations);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Writes the one-SGE signaled SEND of the C loop into {@code wr} and {@code sge}; setup only. */
    static void fillSendWr(MemorySegment wr, MemorySegment sge, MemorySegment buffer, int lkey) {
        try {
            c_fill_send_wr.HANDLE.invokeExact(wr, sge, buffer, lkey);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Writes the one-SGE receive of the C loop into {@code wr} and {@code sge}; setup only. */
    static void fillRecvWr(MemorySegment wr, MemorySegment sge, MemorySegment buffer, int lkey) {
        try {
            c_fill_recv_wr.HANDLE.invokeExact(wr, sge, buffer, lkey);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code obj->context->ops.<op>} as C reads it, through {@code c_<op>_op(obj)}; setup only. */
    static MemorySegment op(String getter, MemorySegment object) {
        try {
            return (MemorySegment) function(getter, op_getter.DESC).invokeExact(object);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * The {@code struct ibv_cq *} or {@code struct ibv_qp *} the fake provider created last
     * ({@code fake_last_cq}, {@code fake_last_qp}). The fake libibverbs is looked up again here: the
     * same file is the same mapping, so these are the globals the provider's calls wrote.
     */
    static MemorySegment lastCreated(String global) {
        SymbolLookup fake = SymbolLookup.libraryLookup(NativeFixtures.file("libfakeverbs.so"), Arena.global());
        return fake.find(global).orElseThrow().reinterpret(ADDRESS.byteSize()).get(ADDRESS, 0);
    }
}
