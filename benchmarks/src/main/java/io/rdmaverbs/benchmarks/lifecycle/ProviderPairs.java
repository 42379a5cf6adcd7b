package io.rdmaverbs.benchmarks.lifecycle;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
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
 * The pairs of {@link ApiPairs} on the provider SPI: the binding's argument structs, checks and
 * errno handling, without the resource graph.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 8, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class ProviderPairs {

    @Param("rxe0")
    public String device;

    private NativeVerbsProvider provider;
    private ContextHandle context;
    private PdHandle pd;
    private CqHandle cq;
    private QpInitSpec rc;
    private Arena arena;
    private MemorySegment buffer;
    private int access;

    @Setup(Level.Trial)
    public void open() {
        provider = NativeVerbsProvider.load();
        DeviceVerbs devices = provider.deviceVerbs();
        context = devices.openDevice(devices.devices().stream().filter(d -> d.name().equals(device)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no device " + device)));
        pd = provider.domainVerbs().allocPd(context);
        cq = provider.completionVerbs().createCq(context, ApiPairs.CQ_ENTRIES, null, 0);
        rc = new QpInitSpec(QpType.RC, pd, null, cq, cq, null, ApiPairs.CAPABILITIES, true);
        arena = Arena.ofShared();
        buffer = arena.allocate(ApiPairs.MR_SIZE, 4096);
        access = AccessFlag.mask(ApiPairs.ACCESS);
    }

    @TearDown(Level.Trial)
    public void close() {
        provider.completionVerbs().destroyCq(cq);
        provider.domainVerbs().deallocPd(pd);
        provider.deviceVerbs().closeDevice(context);
        arena.close();
    }

    @Benchmark
    public void pd() {
        provider.domainVerbs().deallocPd(provider.domainVerbs().allocPd(context));
    }

    @Benchmark
    public void cq() {
        CompletionVerbs cqVerbs = provider.completionVerbs();
        cqVerbs.destroyCq(cqVerbs.createCq(context, ApiPairs.CQ_ENTRIES, null, 0));
    }

    @Benchmark
    public void qp() {
        provider.queuePairVerbs().destroyQp(provider.queuePairVerbs().createQp(context, rc));
    }

    @Benchmark
    public void mr() {
        provider.memoryRegionVerbs().deregMr(provider.memoryRegionVerbs().regMr(pd, buffer, access));
    }
}
