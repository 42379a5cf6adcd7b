package io.rdmaverbs.benchmarks.connection;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;

import org.jspecify.annotations.Nullable;

/**
 * What this JVM has spent so far: process CPU time ({@link OperatingSystemMXBean#getProcessCpuTime()}, GC
 * and compiler threads included), heap bytes allocated by all threads, terminated ones included
 * ({@link ThreadMXBean#getTotalThreadAllocatedBytes()}), and per live platform thread its CPU time and
 * allocation, which {@link #since} sums by what the threads do, by name: the benchmark's own thread, the
 * connection manager's completion loops, the carriers of the virtual threads (the sessions' lanes run the
 * handlers there), the CM event loop and timers, and the rest. A thread that ended between two snapshots
 * is in neither group's figure (only in the totals); one that started is counted from its start. A
 * snapshot allocates its three arrays and a small map on the calling thread (a thread's name is looked
 * up once, when it is first seen).
 *
 * @param cpuNanos process CPU time
 * @param allocatedBytes heap bytes allocated by every thread since the JVM started
 * @param threads per live thread id: CPU nanoseconds and allocated bytes
 */
record ThreadUse(long cpuNanos, long allocatedBytes, Map<Long, long[]> threads) {

    /** The thread groups, in report order; a thread is in the first whose test its name passes. */
    static final String CALLER = "caller";
    static final String COMPLETIONS = "completions";
    static final String VIRTUAL = "virtual";
    static final String CM = "cm";
    static final String OTHER = "other";
    static final List<String> GROUPS = List.of(CALLER, COMPLETIONS, VIRTUAL, CM, OTHER);

    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    static {
        THREADS.setThreadAllocatedMemoryEnabled(true);
        THREADS.setThreadCpuTimeEnabled(true);
    }

    /** The benchmark's threads are named so: SessionBench's loops and its server's handler. */
    static final String CALLER_PREFIX = "sessbench";

    /** Each live thread's group, named once: a snapshot then allocates little more than its three arrays. */
    private static final Map<Long, String> GROUP_OF = new ConcurrentHashMap<>();

    static ThreadUse now() {
        long cpu = OS.getProcessCpuTime();
        long total = THREADS.getTotalThreadAllocatedBytes();
        long[] ids = THREADS.getAllThreadIds();
        long[] cpus = THREADS.getThreadCpuTime(ids);
        long[] allocated = THREADS.getThreadAllocatedBytes(ids);
        Map<Long, long[]> threads = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (cpus[i] >= 0 && allocated[i] >= 0) {
                threads.put(ids[i], new long[] {cpus[i], allocated[i]});
            }
        }
        return new ThreadUse(cpu, total, threads);
    }

    private static String groupOf(long id) {
        var info = THREADS.getThreadInfo(id);
        return info == null ? null : group(info.getThreadName());
    }

    /** The group of a thread by its name (or by the first 15 bytes of it, as the kernel keeps it). */
    static String group(String threadName) {
        if (threadName.startsWith(CALLER_PREFIX)) {
            return CALLER;
        }
        if (threadName.startsWith("rdma-completion")) {
            return COMPLETIONS;
        }
        if (threadName.startsWith("ForkJoinPool")) {
            return VIRTUAL;
        }
        if (threadName.startsWith("rdma-cm-")) {
            return CM;
        }
        return OTHER;
    }

    /**
     * What was spent between {@code earlier} and this snapshot: the totals, and per group (CPU, bytes) the
     * sum over its threads alive at this snapshot of what each spent since the earlier one (or since it
     * started).
     */
    Spent since(ThreadUse earlier) {
        Map<String, long[]> groups = new LinkedHashMap<>();
        for (String g : GROUPS) {
            groups.put(g, new long[2]);
        }
        threads.forEach((id, v) -> {
            String g = GROUP_OF.computeIfAbsent(id, ThreadUse::groupOf);
            if (g != null) {
                long[] e = earlier.threads.getOrDefault(id, new long[2]);
                long[] sum = groups.get(g);
                sum[0] += v[0] - e[0];
                sum[1] += v[1] - e[1];
            }
        });
        return new Spent(cpuNanos - earlier.cpuNanos, allocatedBytes - earlier.allocatedBytes, groups);
    }

    /**
     * What an interval cost: process CPU time, bytes allocated by all threads, and per group CPU nanoseconds
     * and allocated bytes.
     */
    record Spent(long cpuNanos, long allocatedBytes, Map<String, long[]> groups) {

        /**
         * {@code cpu_us_per_msg C alloc_B_per_msg A} and per group {@code cpu_us.G C alloc_B.G A}, per message
         * of {@code messages}: the words SessionBench prints and two-hosts-sessions-report.py reads.
         */
        String perMessage(String side, long messages) {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s_cpu_us_per_msg %.2f %s_alloc_B_per_msg "
                    + "%.1f", side, cpuNanos / 1e3 / messages, side, (double) allocatedBytes / messages));
            groups.forEach((g, v) -> b.append(String.format(Locale.ROOT, " %s_cpu_us.%s %.2f %s_alloc_B.%s %.1f", side,
                    g, v[0] / 1e3 / messages, side, g, (double) v[1] / messages)));
            return b.toString();
        }
    }

    /**
     * What this JVM spends from {@link #start} on: its {@link ThreadUse}, its {@link ContextSwitches} and the
     * device's {@link WireCounters}, the switches and counters read outside the two allocation snapshots so
     * that reading {@code /proc} and {@code /sys} is not counted.
     *
     * @param device the connection's device, or null for no wire counters
     */
    record Interval(ContextSwitches switches, WireCounters wire, ThreadUse use, @Nullable String device) {

        static Interval start(@Nullable String device) {
            ContextSwitches s = ContextSwitches.now();
            WireCounters w = WireCounters.of(device == null ? "" : device);
            return new Interval(s, w, ThreadUse.now(), device);
        }

        /** The words of ThreadUse, ContextSwitches and WireCounters per message of {@code messages}, since the start. */
        String perMessage(String side, long messages) {
            Spent u = ThreadUse.now().since(use);
            long n = Math.max(1, messages);
            String words = u.perMessage(side, n) + " " + ContextSwitches.now().perMessageSince(switches, side, n);
            String counted = device == null ? "" : WireCounters.of(device).perMessageSince(wire, side, n);
            return counted.isEmpty() ? words : words + " " + counted;
        }
    }
}
