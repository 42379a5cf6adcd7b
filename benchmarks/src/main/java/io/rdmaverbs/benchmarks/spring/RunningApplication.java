package io.rdmaverbs.benchmarks.spring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

import io.rdmaverbs.benchmarks.scale.Population;
import io.rdmaverbs.spring.boot.teardown.TeardownReport;
import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Verbs;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * A started {@link DeclaredApplication}, optionally with resources created at run time under its
 * declared device context (the way an application creates connections after startup), and the checks
 * that a benchmark measured what it claims: everything declared was created, and the context's close
 * released everything.
 */
final class RunningApplication implements AutoCloseable {

    private final ConfigurableApplicationContext context;
    private final Verbs verbs;
    private final VerbsTeardown teardown;
    private final int expected;
    private Arena arena;

    private RunningApplication(ConfigurableApplicationContext context, int declared) {
        this.context = context;
        this.verbs = context.getBean(Verbs.class);
        this.teardown = context.getBean(VerbsTeardown.class);
        this.expected = declared + 1;
        checkLive();
    }

    static RunningApplication start(DeclaredApplication application, Map<String, String> properties) {
        return of(application.start(properties), application);
    }

    /** The application {@code context}, started from {@code application}'s declarations. */
    static RunningApplication of(ConfigurableApplicationContext context, DeclaredApplication application) {
        return new RunningApplication(context, application.resources());
    }

    ConfigurableApplicationContext context() {
        return context;
    }

    Verbs verbs() {
        return verbs;
    }

    DeviceContext device() {
        return context.getBean(DeclaredApplication.DEVICE, DeviceContext.class);
    }

    /**
     * Creates {@code resources} more resources under the declared device context, as {@link Population}
     * does (whole units, then a PD, a CQ and a QP of one more as far as they go).
     */
    RunningApplication populate(int resources) {
        if (arena != null) {
            throw new IllegalStateException("already populated");
        }
        arena = Arena.ofShared();
        long units = resources / Population.UNIT + 1;
        MemorySegment memory = arena.allocate(units * Population.regionBytes(), 4096);
        Population.createResources(device(), memory, resources);
        return checkLive(resources);
    }

    private RunningApplication checkLive(int populated) {
        int live = verbs.resources().size();
        if (live != expected + populated) {
            throw new IllegalStateException("expected " + (expected + populated) + " live resources, found " + live);
        }
        return this;
    }

    private void checkLive() {
        checkLive(0);
    }

    /** Closes the context (a no-op if the benchmark already did) and checks that its teardown released everything. */
    @Override
    public void close() {
        context.close();
        TeardownReport report = teardown.report().orElseThrow(
                () -> new IllegalStateException("the context closed without running the teardown"));
        if (!report.isComplete() || !verbs.resources().isEmpty()) {
            throw new IllegalStateException("the teardown left " + report.left().size() + " resources: "
                    + report.describe());
        }
        if (arena != null) {
            arena.close();
        }
    }
}
