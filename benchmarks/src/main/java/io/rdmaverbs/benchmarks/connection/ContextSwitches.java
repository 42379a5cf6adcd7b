package io.rdmaverbs.benchmarks.connection;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The context switches of this process's threads by {@link ThreadUse} group, from
 * {@code /proc/self/task/<tid>/status} ({@code proc(5)}): {@code voluntary_ctxt_switches} are the times a
 * thread blocked (a completion loop waiting in {@code poll(2)} for the next CQ event, a caller parked on
 * a future), so per message they count the wakeups a data path costs. The kernel names a thread after the
 * first 15 bytes of its Java name, enough for the groups. Reading them allocates: take them outside an
 * allocation measurement ({@link SessionBench} reads them before and after its {@code ThreadUse} snapshots).
 *
 * @param voluntary per group, voluntary switches of its live threads
 * @param involuntary per group, preemptions of its live threads
 */
record ContextSwitches(Map<String, Long> voluntary, Map<String, Long> involuntary) {

    static ContextSwitches now() {
        Map<String, Long> voluntary = new LinkedHashMap<>();
        Map<String, Long> involuntary = new LinkedHashMap<>();
        for (String g : ThreadUse.GROUPS) {
            voluntary.put(g, 0L);
            involuntary.put(g, 0L);
        }
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                List<String> status;
                try {
                    status = Files.readAllLines(task.resolve("status"));
                } catch (IOException gone) {
                    continue;
                }
                String group = null;
                for (String line : status) {
                    if (line.startsWith("Name:")) {
                        group = ThreadUse.group(line.substring(5).strip());
                    } else if (group != null && line.startsWith("voluntary_ctxt_switches:")) {
                        voluntary.merge(group, Long.parseLong(line.substring(24).strip()), Long::sum);
                    } else if (group != null && line.startsWith("nonvoluntary_ctxt_switches:")) {
                        involuntary.merge(group, Long.parseLong(line.substring(27).strip()), Long::sum);
                    }
                }
            }
        } catch (IOException noProc) {
            // not Linux: no figures, every group stays 0
        }
        return new ContextSwitches(voluntary, involuntary);
    }

    ContextSwitches since(ContextSwitches earlier) {
        Map<String, Long> v = new LinkedHashMap<>();
        Map<String, Long> i = new LinkedHashMap<>();
        voluntary.forEach((g, n) -> v.put(g, n - earlier.voluntary.getOrDefault(g, 0L)));
        involuntary.forEach((g, n) -> i.put(g, n - earlier.involuntary.getOrDefault(g, 0L)));
        return new ContextSwitches(v, i);
    }

    /** {@code side_wakeups.G W side_preempted.G P} per message, for each group. */
    String perMessage(String side, long messages) {
        StringBuilder b = new StringBuilder();
        voluntary.forEach((g, n) -> b.append(String.format(Locale.ROOT, " %s_wakeups.%s %.2f %s_preempted.%s %.2f", side,
                g, (double) n / messages, side, g, (double) involuntary.get(g) / messages)));
        return b.toString().strip();
    }
}
