package io.rdmaverbs.benchmarks.spring;

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
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code SpringApplication.run} of the minimal application with 0 (the device alone), 250, 500 and 1,000
 * declared resources, to ready (the call returns after {@code ApplicationReadyEvent}); each a single
 * shot. {@code run} is a started JVM's n-th start (5 warm-up shots, then 10 measured, per fork);
 * {@code firstRun} is the first start in a fresh JVM, class loading and interpreter included, which is
 * what an application's own start pays.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx6g"})
public class ContextStart {

    /** Not final: JMH subclasses its state classes. */
    @State(Scope.Thread)
    public static class Declarations {

        @Param({"0", "250", "500", "1000"})
        public int declared;

        DeclaredApplication application;
        ConfigurableApplicationContext started;

        @Setup(Level.Trial)
        public void write() {
            application = DeclaredApplication.declaring(declared);
        }

        /** Checks what the shot created, then closes it (not measured). */
        @TearDown(Level.Invocation)
        public void close() {
            RunningApplication.of(started, application).close();
            started = null;
        }

        @TearDown(Level.Trial)
        public void delete() {
            application.delete();
        }
    }

    @Benchmark
    public ConfigurableApplicationContext run(Declarations declarations) {
        declarations.started = declarations.application.start();
        return declarations.started;
    }

    @Benchmark
    @Warmup(iterations = 0)
    @Measurement(iterations = 1)
    @Fork(value = 5, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx6g"})
    public ConfigurableApplicationContext firstRun(Declarations declarations) {
        return run(declarations);
    }
}
