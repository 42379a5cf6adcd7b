package io.rdmaverbs.benchmarks.lifecycle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;

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
 * The floor: the pairs of {@link ApiPairs} as bare downcalls into {@code libibverbs.so.1}, with the
 * linker options the binding uses (errno captured, no {@code critical}: these calls enter the
 * kernel), the argument structs built once, and no checks. What is left between this and
 * {@code lifecycle.c} is the JVM's: the downcall and the thread-state transitions around it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 8, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class RawPairs {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    /* The library the provider would load: the system's, or the one -Dio.rdmaverbs.verbs.library names (the fake on the host). */
    private static final SymbolLookup IBVERBS = library(System.getProperty(NativeVerbsProvider.LIBRARY_PROPERTY));

    private static SymbolLookup library(String configured) {
        return configured == null || configured.isBlank()
                ? SymbolLookup.libraryLookup("libibverbs.so.1", Arena.global())
                : SymbolLookup.libraryLookup(Path.of(configured), Arena.global());
    }

    private static MethodHandle function(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(IBVERBS.find(name).orElseThrow(), descriptor, options);
    }

    private static final MethodHandle GET_DEVICE_LIST = function("ibv_get_device_list",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle GET_DEVICE_NAME = function("ibv_get_device_name",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle OPEN_DEVICE = function("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle CLOSE_DEVICE = function("ibv_close_device",
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle ALLOC_PD = function("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS),
            ERRNO);
    private static final MethodHandle DEALLOC_PD = function("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS),
            ERRNO);
    private static final MethodHandle CREATE_CQ = function("ibv_create_cq",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), ERRNO);
    private static final MethodHandle DESTROY_CQ = function("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS),
            ERRNO);
    private static final MethodHandle CREATE_QP = function("ibv_create_qp",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), ERRNO);
    private static final MethodHandle DESTROY_QP = function("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS),
            ERRNO);
    private static final MethodHandle REG_MR = function("ibv_reg_mr",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), ERRNO);
    private static final MethodHandle DEREG_MR = function("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS),
            ERRNO);

    /* struct ibv_qp_init_attr, as lifecycle.c asserts with offsetof against verbs.h. */
    static final long QP_INIT_ATTR_SIZE = 64;
    static final long SEND_CQ = 8;
    static final long RECV_CQ = 16;
    static final long CAP = 32;
    static final long QP_TYPE = 52;
    static final long SQ_SIG_ALL = 56;
    static final int IBV_QPT_RC = 2;

    @Param("rxe0")
    public String device;

    private MemorySegment context;
    private MemorySegment pd;
    private MemorySegment cq;
    private MemorySegment qpInitAttr;
    private MemorySegment buffer;
    private MemorySegment errno;
    private int access;
    private Arena arena;

    @Setup(Level.Trial)
    public void open() throws Throwable {
        arena = Arena.ofShared();
        MemorySegment list = ((MemorySegment) GET_DEVICE_LIST.invokeExact(MemorySegment.NULL))
                .reinterpret(64 * ADDRESS.byteSize());
        for (int i = 0; context == null; i++) {
            MemorySegment d = list.getAtIndex(ADDRESS, i);
            if (d.address() == 0) {
                throw new IllegalStateException("no device " + device);
            }
            String name = ((MemorySegment) GET_DEVICE_NAME.invokeExact(d)).reinterpret(64).getString(0);
            if (name.equals(device)) {
                context = (MemorySegment) OPEN_DEVICE.invokeExact(d);
            }
        }
        errno = arena.allocate(Linker.Option.captureStateLayout());
        pd = (MemorySegment) ALLOC_PD.invokeExact(errno, context);
        cq = (MemorySegment) CREATE_CQ.invokeExact(errno, context, ApiPairs.CQ_ENTRIES, MemorySegment.NULL,
                MemorySegment.NULL, 0);
        qpInitAttr = arena.allocate(QP_INIT_ATTR_SIZE, 8);
        buffer = arena.allocate(ApiPairs.MR_SIZE, 4096);
        access = AccessFlag.mask(ApiPairs.ACCESS);
        // Bare addresses, as a binding that trusts its caller would pass them: nothing to keep alive per call.
        errno = MemorySegment.ofAddress(errno.address()).reinterpret(errno.byteSize());
        buffer = MemorySegment.ofAddress(buffer.address());
    }

    @TearDown(Level.Trial)
    public void close() throws Throwable {
        int rc = (int) DESTROY_CQ.invokeExact(errno, cq) | (int) DEALLOC_PD.invokeExact(errno, pd)
                | (int) CLOSE_DEVICE.invokeExact(context);
        arena.close();
        if (rc != 0) {
            throw new IllegalStateException("teardown failed");
        }
    }

    /** Fills the init attr as lifecycle.c does; every call, since a real caller has to. */
    private MemorySegment rc() {
        MemorySegment a = qpInitAttr;
        a.fill((byte) 0);
        a.set(ADDRESS, SEND_CQ, cq);
        a.set(ADDRESS, RECV_CQ, cq);
        a.set(JAVA_INT, CAP, ApiPairs.CAPABILITIES.maxSendWr());
        a.set(JAVA_INT, CAP + 4, ApiPairs.CAPABILITIES.maxRecvWr());
        a.set(JAVA_INT, CAP + 8, ApiPairs.CAPABILITIES.maxSendSge());
        a.set(JAVA_INT, CAP + 12, ApiPairs.CAPABILITIES.maxRecvSge());
        a.set(JAVA_INT, QP_TYPE, IBV_QPT_RC);
        a.set(JAVA_INT, SQ_SIG_ALL, 1);
        return a;
    }

    @Benchmark
    public int pd() throws Throwable {
        return (int) DEALLOC_PD.invokeExact(errno, (MemorySegment) ALLOC_PD.invokeExact(errno, context));
    }

    @Benchmark
    public int cq() throws Throwable {
        return (int) DESTROY_CQ.invokeExact(errno, (MemorySegment) CREATE_CQ.invokeExact(errno, context,
                ApiPairs.CQ_ENTRIES, MemorySegment.NULL, MemorySegment.NULL, 0));
    }

    @Benchmark
    public int qp() throws Throwable {
        return (int) DESTROY_QP.invokeExact(errno, (MemorySegment) CREATE_QP.invokeExact(errno, pd, rc()));
    }

    @Benchmark
    public int mr() throws Throwable {
        return (int) DEREG_MR.invokeExact(errno, (MemorySegment) REG_MR.invokeExact(errno, pd, buffer,
                (long) ApiPairs.MR_SIZE, access));
    }
}
