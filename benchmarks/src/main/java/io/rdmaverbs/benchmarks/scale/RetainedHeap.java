package io.rdmaverbs.benchmarks.scale;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.management.JMException;
import javax.management.ObjectName;

import io.rdmaverbs.benchmarks.NativeFixtures;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;

/**
 * Heap retained per resource: used heap after a full GC with a populated graph, minus the same with
 * only its device context, divided by the number of resources. Measured on the simulated provider
 * (whose pure-Java "kernel" objects are included) and on the native provider over the do-nothing
 * libibverbs of the hot-path benchmarks (where the C objects are off-heap, as in production). The
 * classes that grew most come from the JVM's live-object class histogram.
 *
 * <p>Not a JMH benchmark: retention is a state, not a rate. Prints
 * {@code heap <provider> <resources> <round> <bytes/resource>} per round, the same as
 * {@code heap <provider>-reported ...} once the graph's stuck references and close plan have been asked
 * for (every resource then keeps its ref), and
 * {@code class <provider> <resources> <bytes/resource> <instances/resource> <class>} for the last.
 *
 * <p>usage: {@code java -cp benchmarks.jar io.rdmaverbs.benchmarks.scale.RetainedHeap [rounds=3] [sizes=1000,10000,100000]}
 */
public final class RetainedHeap {

    private static final int TOP_CLASSES = Integer.getInteger("top", 12);
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private RetainedHeap() {
    }

    public static void main(String[] args) throws JMException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        String sizes = args.length > 1 ? args[1] : "1000,10000,100000";
        NativeVerbsProvider fake = NativeVerbsProvider.load(NativeFixtures.file("libfakeverbs.so"));
        for (String size : sizes.split(",")) {
            int n = Integer.parseInt(size.trim());
            for (int round = 1; round <= rounds; round++) {
                boolean last = round == rounds;
                measure("simulated", () -> Population.simulated(n), n, round, last);
                measure("native", () -> Population.on(fake, "fake0", n), n, round, last);
            }
        }
    }

    private interface Graphs {
        Population empty();
    }

    private static void measure(String provider, Graphs graphs, int n, int round, boolean histogram)
            throws JMException {
        try (Population population = graphs.empty()) {
            Map<String, long[]> before = histogram ? histogram() : Map.of();
            long empty = usedAfterGc();
            population.populate();
            long full = usedAfterGc();
            System.out.printf("heap %s %d %d %.1f%n", provider, n, round, (double) (full - empty) / n);
            if (histogram) {
                printGrowth(provider, n, before, histogram());
            }
            // What a graph keeps once reports have named every resource (each keeps the ref it built).
            consume(population.verbs().stuckReferences().size() + population.verbs().planClose(ClosePolicy.CASCADE)
                    .steps().size());
            long reported = usedAfterGc();
            System.out.printf("heap %s-reported %d %d %.1f%n", provider, n, round, (double) (reported - empty) / n);
        }
    }

    private static volatile long sink;

    /** Keeps {@code value} from being computed for nothing. */
    private static void consume(long value) {
        sink = value;
    }

    /** Used heap after a full GC, in bytes. */
    public static long usedAfterGc() {
        // Twice: the first full GC may leave objects that only became unreachable through finalization-like cleanups.
        System.gc();
        System.gc();
        return MEMORY.getHeapMemoryUsage().getUsed();
    }

    /**
     * Prints {@code class <label> <n> <bytes/n> <instances/n> <class>} for the classes that grew most
     * from {@code before} to {@code after}.
     */
    public static void printGrowth(String label, int n, Map<String, long[]> before, Map<String, long[]> after) {
        List<Map.Entry<String, long[]>> grown = new ArrayList<>();
        after.forEach((name, counts) -> {
            long[] old = before.getOrDefault(name, new long[2]);
            long instances = counts[0] - old[0];
            long bytes = counts[1] - old[1];
            if (bytes > 0) {
                grown.add(Map.entry(name, new long[] {instances, bytes}));
            }
        });
        grown.sort(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed());
        for (Map.Entry<String, long[]> e : grown.subList(0, Math.min(TOP_CLASSES, grown.size()))) {
            System.out.printf("class %s %d %.1f %.2f %s%n", label, n, (double) e.getValue()[1] / n,
                    (double) e.getValue()[0] / n, e.getKey());
        }
    }

    /** {@code jcmd <pid> GC.class_histogram} from inside: class name -> {instances, bytes}, after a full GC. */
    public static Map<String, long[]> histogram() throws JMException {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, long[]> classes = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            // "   1:   12345   678900  java.lang.String (java.base@25)"
            if (f.length >= 4 && f[0].endsWith(":")) {
                classes.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        return classes;
    }
}
