package io.rdmaverbs.benchmarks.hotpath;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The C baseline: each invocation is one downcall into a C loop ({@code hot_path_loops.c}) that calls
 * the verb {@value #CALLS} times through {@code obj->context->ops}, as compiled C does, on the same
 * CQ and QP as {@link ApiCalls}. JMH divides by {@value #CALLS}, so the figure is C's per call, and
 * the one downcall (a few ns per {@value #CALLS} calls) vanishes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@OperationsPerInvocation(CLoop.CALLS)
public class CLoop {

    static final int CALLS = 10_000;

    @Benchmark
    public long poll1(FakeDevice d) {
        return HotPathLoops.pollCq(d.cqPointer, 1, CALLS);
    }

    @Benchmark
    public long poll16(FakeDevice d) {
        return HotPathLoops.pollCq(d.cqPointer, 16, CALLS);
    }

    @Benchmark
    public long reqNotify(FakeDevice d) {
        return HotPathLoops.reqNotifyCq(d.cqPointer, CALLS);
    }

    @Benchmark
    public long postSend(FakeDevice d) {
        return HotPathLoops.postSend(d.qpPointer, d.mr.segment(), d.mr.lkey(), CALLS);
    }

    @Benchmark
    public long postRecv(FakeDevice d) {
        return HotPathLoops.postRecv(d.qpPointer, d.mr.segment(), d.mr.lkey(), CALLS);
    }
}
