package io.rdmaverbs.benchmarks.scale;

import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseReport;

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
 * Building a graph of 1k, 10k and 100k resources on the simulated provider, and tearing it down with
 * one cascade close. Each is a single shot on a fresh graph (a close can happen only once), so
 * there are more iterations than for the queries.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx6g"})
public class GraphLifecycle {

    /** Not final: JMH subclasses its state classes. */
    @State(Scope.Thread)
    public static class Empty {
        @Param({"1000", "10000", "100000"})
        public int resources;

        Population population;

        @Setup(Level.Invocation)
        public void open() {
            population = Population.simulated(resources);
        }

        @TearDown(Level.Invocation)
        public void close() {
            population.close();
        }
    }

    /** Not final: JMH subclasses its state classes. */
    @State(Scope.Thread)
    public static class Populated {
        @Param({"1000", "10000", "100000"})
        public int resources;

        Population population;

        @Setup(Level.Invocation)
        public void populate() {
            population = Population.simulated(resources).populate();
        }

        @TearDown(Level.Invocation)
        public void close() {
            population.close();
        }
    }

    @Benchmark
    public Population populate(Empty graph) {
        return graph.population.populate();
    }

    @Benchmark
    public CloseReport cascadeClose(Populated graph) {
        CloseReport report = graph.population.verbs().close(ClosePolicy.CASCADE);
        if (!report.left().isEmpty()) {
            throw new IllegalStateException("the cascade left " + report.left().size() + " resources: "
                    + report.left().getFirst());
        }
        return report;
    }
}
