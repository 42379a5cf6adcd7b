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
 * The per-WR cost of a chain of {@value #CHAIN} work requests posted in one call, through the API
 * ({@code QueuePair.postSend(SendBatch)}, {@code postReceive(ReceiveBatch)}) and from C
 * ({@code hot_path_loops.c}: the same chain, linked through {@code next}, posted by
 * {@code ibv_post_send}), in the same JMH run, on the same QP of {@code libfakeverbs.so} whose posts
 * walk the chain reading every WR and SGE. JMH divides by the WRs an invocation posts, so every
 * figure is nanoseconds per WR.
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

    /** The provider SPI alone, receives: what the API's receive chain adds is the difference. */
    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public void providerRecvChain(FakeDevice d) {
        d.qpVerbs.postRecv(d.rawQp, d.rawRecvChain);
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
