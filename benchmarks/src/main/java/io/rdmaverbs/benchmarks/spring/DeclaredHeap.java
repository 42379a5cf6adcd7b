package io.rdmaverbs.benchmarks.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.Reference;
import java.util.List;
import java.util.Map;

import javax.management.JMException;

import io.rdmaverbs.benchmarks.scale.RetainedHeap;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.FileSystemResource;

/**
 * Heap retained per declared resource with the application running: used heap after a full GC with
 * {@code n} resources declared, minus the same with the device alone declared, divided by {@code n}.
 * For comparison, the same {@code n} resources created at run time under the declared context of the
 * device-only application ({@code populated}): the difference between the two is what declaring a
 * resource adds to the resource itself (its bean definition and singleton, its share of the bound
 * {@code rdma.verbs} tree and of the YAML property source, its own page-aligned region memory's arena).
 * Two parts of the declared figure are also measured alone, outside any application: {@code yaml}, the
 * file as Spring Boot's {@code YamlPropertySourceLoader} loads it (the property source the environment
 * keeps), and {@code bound}, the {@code rdma.verbs} tree bound from it ({@code VerbsProperties}, the
 * bean the starter keeps); each per declared resource.
 * Run with {@code -XX:SoftRefLRUPolicyMSPerMB=0}, so that the full GCs also clear Spring's soft-reference
 * caches: what is counted is what the running application holds on to.
 *
 * <p>Not a JMH benchmark: retention is a state, not a rate. Prints
 * {@code heap <declared|populated|yaml|bound> <resources> <round> <bytes/resource>} per round and, for
 * the last, {@code class <declared|populated> <resources> <bytes/resource> <instances/resource> <class>}.
 *
 * <p>usage: {@code java -XX:SoftRefLRUPolicyMSPerMB=0 -cp benchmarks.jar io.rdmaverbs.benchmarks.spring.DeclaredHeap [rounds=3] [sizes=250,500,1000]}
 */
public final class DeclaredHeap {

    private DeclaredHeap() {
    }

    public static void main(String[] args) throws JMException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        String sizes = args.length > 1 ? args[1] : "250,500,1000";
        DeclaredApplication deviceOnly = DeclaredApplication.declaring(0);
        // Loads and initializes every class involved once, so that no static state appears in the figures.
        DeclaredApplication warmUp = DeclaredApplication.declaring(8);
        RunningApplication.start(warmUp, Map.of()).close();
        RunningApplication.start(deviceOnly, Map.of()).populate(8).close();
        warmUp.delete();
        for (String size : sizes.split(",")) {
            int n = Integer.parseInt(size.trim());
            DeclaredApplication declaring = DeclaredApplication.declaring(n);
            for (int round = 1; round <= rounds; round++) {
                round(deviceOnly, declaring, n, round, round == rounds);
            }
            declaring.delete();
        }
        deviceOnly.delete();
    }

    /**
     * One round at {@code n}, each application started and closed in a method of its own, so that no
     * local variable keeps a closed one (with all its bean definitions) reachable while the next is measured.
     */
    private static void round(DeclaredApplication deviceOnly, DeclaredApplication declaring, int n, int round,
            boolean histogram) throws JMException {
        RunningApplication base = RunningApplication.start(deviceOnly, Map.of());
        Map<String, long[]> before = histogram ? RetainedHeap.histogram() : Map.of();
        long empty = RetainedHeap.usedAfterGc();
        base.populate(n);
        report("populated", n, round, empty, before, histogram);
        base.close();
        base = null;
        declared(declaring, n, round, empty, before, histogram);
        parts(declaring, n, round);
    }

    private static void declared(DeclaredApplication declaring, int n, int round, long empty,
            Map<String, long[]> before, boolean histogram) throws JMException {
        RunningApplication declared = RunningApplication.start(declaring, Map.of());
        report("declared", n, round, empty, before, histogram);
        declared.close();
    }

    /** The YAML property source and the bound tree alone. */
    private static void parts(DeclaredApplication declaring, int n, int round) {
        long nothing = RetainedHeap.usedAfterGc();
        List<PropertySource<?>> yaml = load(declaring);
        long loaded = RetainedHeap.usedAfterGc();
        System.out.printf("heap yaml %d %d %.1f%n", n, round, (double) (loaded - nothing) / n);
        VerbsProperties properties = new Binder(ConfigurationPropertySources.from(yaml))
                .bindOrCreate(VerbsProperties.PREFIX, VerbsProperties.class);
        long bound = RetainedHeap.usedAfterGc();
        System.out.printf("heap bound %d %d %.1f%n", n, round, (double) (bound - loaded) / n);
        Reference.reachabilityFence(yaml);
        Reference.reachabilityFence(properties);
    }

    private static List<PropertySource<?>> load(DeclaredApplication application) {
        try {
            return new YamlPropertySourceLoader().load("declarations", new FileSystemResource(application.file()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void report(String what, int n, int round, long empty, Map<String, long[]> before,
            boolean histogram) throws JMException {
        long full = RetainedHeap.usedAfterGc();
        System.out.printf("heap %s %d %d %.1f%n", what, n, round, (double) (full - empty) / n);
        if (histogram) {
            RetainedHeap.printGrowth(what, n, before, RetainedHeap.histogram());
        }
    }
}
