package io.rdmaverbs.benchmarks.lifecycle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpCapabilities;
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
 * Create/destroy pairs on a real device through the project's API, each through the resource graph
 * (guards, registration, a strict close): the Java side of {@code src/main/c/lifecycle.c}, with the
 * same arguments and iteration shape. Runs in the soft-RoCE guest ({@code benchmarks/run.sh lifecycle});
 * {@link ProviderPairs} and {@link RawPairs} are the same pairs one and two layers down.
 *
 * <p>One fork: the forked JVM inherits the guest's C1-only flags from {@code java.sh}. Eight
 * warm-up seconds: under emulation the interpreter takes milliseconds per pair, so C1 needs several
 * seconds of calls before it has compiled the path (measured: a QP pair falls from 20 ms to 0.9 ms
 * over the first six). Not final: JMH subclasses benchmark classes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 8, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class ApiPairs {

    static final int MR_SIZE = 64 * 1024;
    static final int CQ_ENTRIES = 256;
    static final Set<AccessFlag> ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ);
    static final QpCapabilities CAPABILITIES = new QpCapabilities(64, 64, 1, 1, 0);

    @Param("rxe0")
    public String device;

    private Verbs verbs;
    private DeviceContext context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePairSpec rc;
    private Arena arena;
    private MemorySegment buffer;

    @Setup(Level.Trial)
    public void open() {
        verbs = Verbs.using(NativeVerbsProvider.load());
        context = verbs.openDevice(device);
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(CompletionQueueSpec.of(CQ_ENTRIES));
        rc = QueuePairSpec.rc(cq, cq, CAPABILITIES);
        arena = Arena.ofShared();
        buffer = arena.allocate(MR_SIZE, 4096);
    }

    @TearDown(Level.Trial)
    public void close() {
        verbs.close();
        arena.close();
    }

    @Benchmark
    public void pd() {
        context.allocateProtectionDomain().close();
    }

    @Benchmark
    public void cq() {
        context.createCompletionQueue(CompletionQueueSpec.of(CQ_ENTRIES)).close();
    }

    @Benchmark
    public void qp() {
        pd.createQueuePair(rc).close();
    }

    @Benchmark
    public void mr() {
        pd.registerMemory(buffer, ACCESS).close();
    }
}
