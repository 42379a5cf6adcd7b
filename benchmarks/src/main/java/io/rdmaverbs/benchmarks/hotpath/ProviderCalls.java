package io.rdmaverbs.benchmarks.hotpath;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The binding alone: the native {@code CompletionVerbs.pollCq/reqNotifyCq} and
 * {@code QueuePairVerbs.postSend/postRecv} on SPI handles, kept in fields as the graph keeps them, with
 * the provider's handle and buffer checks, but without the resource graph's guard.
 * Between this and {@link ApiCalls} is what the guard costs.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class ProviderCalls {

    @Benchmark
    public int poll1(FakeDevice d) {
        return d.cqVerbs.pollCq(d.rawCq, d.rawOne, 1);
    }

    @Benchmark
    public int poll16(FakeDevice d) {
        return d.cqVerbs.pollCq(d.rawCq, d.rawSixteen, 16);
    }

    @Benchmark
    public void reqNotify(FakeDevice d) {
        d.cqVerbs.reqNotifyCq(d.rawCq, false);
    }

    @Benchmark
    public void postSend(FakeDevice d) {
        d.qpVerbs.postSend(d.rawQp, d.rawSend);
    }

    @Benchmark
    public void postRecv(FakeDevice d) {
        d.qpVerbs.postRecv(d.rawQp, d.rawReceive);
    }
}
