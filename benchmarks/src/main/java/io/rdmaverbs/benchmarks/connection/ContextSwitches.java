package io.rdmaverbs.benchmarks.connection;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The context switches of this process's threads, from {@code /proc/self/task/<tid>/status}
 * ({@code proc(5)}), summed by {@link ThreadUse} group over an interval: {@code voluntary_ctxt_switches}
 * are the times a thread blocked (a completion loop waiting in {@code poll(2)} for the next CQ event, a
 * caller parked on a future), so per message they count the wakeups a data path costs;
 * {@code nonvoluntary_ctxt_switches} are preemptions. The kernel names a thread after the first 15 bytes
 * of its Java name, enough for the groups. Reading them allocates: take them outside an allocation
 * measurement ({@link ThreadUse.Interval} does).
 *
 * @param tasks per thread id: its group, voluntary and involuntary switches so far
 */
record ContextSwitches(Map<String, Task> tasks) {

    /** One thread's switches so far. */
    record Task(String group, long voluntary, long involuntary) {
    }

    static ContextSwitches now() {
        Map<String, Task> tasks = new HashMap<>();
        try (Stream<Path> dirs = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : dirs.toList()) {
                List<String> status;
                try {
                    status = Files.readAllLines(task.resolve("status"));
                } catch (IOException gone) {
                    continue;
                }
                String group = ThreadUse.OTHER;
                long voluntary = 0;
                long involuntary = 0;
                for (String line : status) {
                    if (line.startsWith("Name:")) {
                        group = ThreadUse.group(line.substring(5).strip());
                    } else if (line.startsWith("voluntary_ctxt_switches:")) {
                        voluntary = Long.parseLong(line.substring(24).strip());
                    } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                        involuntary = Long.parseLong(line.substring(27).strip());
                    }
                }
                tasks.put(task.getFileName().toString(), new Task(group, voluntary, involuntary));
            }
        } catch (IOException noProc) {
            // not Linux: no tasks, every group stays 0
        }
        return new ContextSwitches(tasks);
    }

    /**
     * {@code side_wakeups.G W side_preempted.G P} per message, for each group: what its threads alive now
     * did since {@code earlier} (or since they started).
     */
    String perMessageSince(ContextSwitches earlier, String side, long messages) {
        Map<String, long[]> groups = new LinkedHashMap<>();
        for (String g : ThreadUse.GROUPS) {
            groups.put(g, new long[2]);
        }
        tasks.forEach((tid, t) -> {
            Task e = earlier.tasks.getOrDefault(tid, new Task(t.group(), 0, 0));
            long[] sum = groups.get(t.group());
            sum[0] += t.voluntary() - e.voluntary();
            sum[1] += t.involuntary() - e.involuntary();
        });
        StringBuilder b = new StringBuilder();
        groups.forEach((g, n) -> b.append(String.format(Locale.ROOT, " %s_wakeups.%s %.2f %s_preempted.%s %.2f", side,
                g, (double) n[0] / messages, side, g, (double) n[1] / messages)));
        return b.toString().strip();
    }
}
