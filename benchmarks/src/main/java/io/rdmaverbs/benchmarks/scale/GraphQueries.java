package io.rdmaverbs.benchmarks.scale;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.benchmarks.LoadAverage;
import io.rdmaverbs.verbs.ClosePlan;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;

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
 * The read-only questions a health endpoint and a shutdown ask of a live graph of 1k, 10k and 100k
 * resources on the simulated provider: the per-resource details with every stuck reference (the
 * stand-in for the health indicator's details, which the Spring module builds from exactly these),
 * and the cascade close plan; and, as their floor, every resource named once, split into the registry's copy
 * and the naming of a list made once.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx6g"})
@State(Scope.Benchmark)
public class GraphQueries {

    @Param({"1000", "10000", "100000"})
    public int resources;

    private Population population;

    /** What a health report holds: each live resource with its details, and what is stuck. */
    public record HealthDetails(List<Map.Entry<ResourceRef, Map<String, Object>>> resources,
            List<StuckReference> stuck) {

        /** Asks {@code verbs} for them. */
        public static HealthDetails of(Verbs verbs) {
            List<VerbsResource> live = verbs.resources();
            List<Map.Entry<ResourceRef, Map<String, Object>>> details = new ArrayList<>(live.size());
            for (VerbsResource r : live) {
                details.add(Map.entry(r.ref(), r.details()));
            }
            return new HealthDetails(details, verbs.stuckReferences());
        }
    }

    @Setup(Level.Trial)
    public void populate() {
        System.out.println(LoadAverage.line("at start"));
        population = Population.simulated(resources).populate();
    }

    @TearDown(Level.Trial)
    public void close() {
        population.close();
        System.out.println(LoadAverage.line("at end"));
    }

    @Benchmark
    public HealthDetails healthDetails() {
        return HealthDetails.of(population.verbs());
    }

    @Benchmark
    public ClosePlan closePlan() {
        return population.verbs().planClose(ClosePolicy.CASCADE);
    }

    /**
     * The floor of any report on the whole graph: every live resource named once (its ref's name read), and
     * nothing built. What it costs per resource at 100k over 1k is what memory alone adds to every query.
     */
    @Benchmark
    public long everyResourceNamed() {
        long length = 0;
        for (VerbsResource r : population.verbs().resources()) {
            length += r.ref().name().length();
        }
        return length;
    }

    /** The floor's first half: the registry's live resources copied into a list, nothing of theirs read. */
    @Benchmark
    public int registryCopied() {
        return population.verbs().resources().size();
    }

    /**
     * The floor's other half: each resource of a list made once named, so that what grows over its 1k figure
     * is each resource's own objects (the resource, its ref, the name's string and bytes), not the registry.
     */
    @Benchmark
    public long listedResourcesNamed(Listed listed) {
        long length = 0;
        for (VerbsResource r : listed.resources) {
            length += r.ref().name().length();
        }
        return length;
    }

    /**
     * The live resources as a list made once, for {@link #listedResourcesNamed} alone: the other benchmarks'
     * heap holds no copy of it. Not final: JMH subclasses its state classes.
     */
    @State(Scope.Benchmark)
    public static class Listed {

        List<VerbsResource> resources;

        @Setup(Level.Trial)
        public void list(GraphQueries queries) {
            resources = new ArrayList<>(queries.population.verbs().resources());
        }
    }
}
