package io.rdmaverbs.benchmarks.spring;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.benchmarks.LoadAverage;
import io.rdmaverbs.benchmarks.scale.GraphQueries;
import io.rdmaverbs.spring.boot.health.VerbsHealthContributor;

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
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The health the starter registers, over a running application on the simulated provider with 1k, 10k
 * and 100k resources under its one declared device context (created after startup, in the units of
 * {@code scale.Population}), next to the graph-level equivalent on the very same graph:
 * <ul>
 * <li>{@code graphDetails}: {@code GraphQueries.healthDetails}, each resource's details and every stuck
 * reference, straight from verbs-core;</li>
 * <li>{@code deviceIndicator}: the {@code rdmaVerbs} composite's indicator for the device, looked up
 * by name and asked for its {@code health()}, as the actuator does;</li>
 * <li>{@code healthEndpoint}: {@code HealthEndpoint.healthForPath("rdmaVerbs")} with details shown,
 * which is what {@code GET /actuator/health/rdmaVerbs} computes before it writes JSON.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx6g"})
@State(Scope.Benchmark)
public class HealthBuild {

    @Param({"1000", "10000", "100000"})
    public int resources;

    private DeclaredApplication declarations;
    private RunningApplication application;
    private VerbsHealthContributor contributor;
    private HealthEndpoint endpoint;

    @Setup(Level.Trial)
    public void start() {
        System.out.println(LoadAverage.line("at start"));
        declarations = DeclaredApplication.declaring(0);
        application = RunningApplication.start(declarations, Map.of("management.endpoint.health.show-details", "always"))
                .populate(resources);
        contributor = application.context().getBean(VerbsHealthContributor.class);
        endpoint = application.context().getBean(HealthEndpoint.class);
        // What is measured is what is served: the device's indicator, UP, with every resource in its details.
        Health health = deviceIndicator();
        Object counts = health.getDetails().get("resources");
        int counted = counts instanceof Map<?, ?> m ? m.values().stream().mapToInt(v -> (Integer) v).sum() : -1;
        if (!"UP".equals(health.getStatus().getCode()) || counted != resources + 1 || healthEndpoint() == null) {
            throw new IllegalStateException("unexpected health: " + health.getStatus() + " with " + counts);
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        application.close();
        declarations.delete();
        System.out.println(LoadAverage.line("at end"));
    }

    @Benchmark
    public GraphQueries.HealthDetails graphDetails() {
        return GraphQueries.HealthDetails.of(application.verbs());
    }

    @Benchmark
    public Health deviceIndicator() {
        return ((HealthIndicator) contributor.getContributor(DeclaredApplication.DEVICE)).health();
    }

    @Benchmark
    public HealthDescriptor healthEndpoint() {
        return endpoint.healthForPath("rdmaVerbs");
    }
}
