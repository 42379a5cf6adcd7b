package io.rdmaverbs.benchmarks.spring;

import java.util.Map;
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
 * {@code context.close()} of the minimal application with 0, 250, 500 and 1,000 declared resources: the
 * lifecycle stop (async-event readers, then the ordered teardown of the whole graph with its log block)
 * and the destruction of every bean; each a single shot on a freshly started context. With the
 * async-event readers on (the default) and off, because a reader notices the stop only when its wait
 * for an event ends, up to 100 ms later.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx6g"})
public class ContextStop {

    /** Not final: JMH subclasses its state classes. */
    @State(Scope.Thread)
    public static class Started {

        @Param({"0", "250", "500", "1000"})
        public int declared;

        @Param({"true", "false"})
        public boolean asyncEvents;

        DeclaredApplication application;
        RunningApplication running;

        @Setup(Level.Trial)
        public void write() {
            application = DeclaredApplication.declaring(declared);
        }

        @Setup(Level.Invocation)
        public void start() {
            running = RunningApplication.start(application,
                    Map.of("rdma.verbs.async-events.enabled", Boolean.toString(asyncEvents)));
        }

        /** Checks that the close released everything. */
        @TearDown(Level.Invocation)
        public void check() {
            running.close();
        }

        @TearDown(Level.Trial)
        public void delete() {
            application.delete();
        }
    }

    @Benchmark
    public void close(Started started) {
        started.running.context().close();
    }
}
