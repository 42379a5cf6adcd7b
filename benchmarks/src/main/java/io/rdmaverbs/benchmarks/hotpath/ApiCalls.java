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
 * What an application calls: {@code CompletionQueue.poll}, {@code requestNotification},
 * {@code QueuePair.postSend} and {@code postReceive}, each entering and leaving the resource's
 * close guard and (for posts) checking the request's memory regions, then the provider.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class ApiCalls {

    @Benchmark
    public int poll1(FakeDevice d) {
        return d.cq.poll(d.one);
    }

    @Benchmark
    public int poll16(FakeDevice d) {
        return d.cq.poll(d.sixteen);
    }

    @Benchmark
    public void reqNotify(FakeDevice d) {
        d.cq.requestNotification(false);
    }

    @Benchmark
    public void postSend(FakeDevice d) {
        d.qp.postSend(d.send);
    }

    @Benchmark
    public void postRecv(FakeDevice d) {
        d.qp.postReceive(d.receive);
    }
}
