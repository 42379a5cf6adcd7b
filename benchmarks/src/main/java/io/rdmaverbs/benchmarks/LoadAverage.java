package io.rdmaverbs.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's load average, as {@code /proc/loadavg} gives it: the scale figures are memory-bound, and
 * on a machine shared with other builds they move with the load, so every trial says what it ran under.
 */
public final class LoadAverage {

    private LoadAverage() {
    }

    /** The 1-, 5- and 15-minute load averages, e.g. {@code 0.52 0.61 0.70}; {@code unknown} off Linux. */
    public static String now() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException unreadable) {
            return "unknown";
        }
    }

    /** {@code # cpu: <model>, load average <now>}, the line a trial prints as it starts and ends. */
    public static String line(String when) {
        return "# cpu: " + CpuModel.name() + ", " + Runtime.getRuntime().availableProcessors() + " cpus; load average "
                + when + ": " + now();
    }
}
