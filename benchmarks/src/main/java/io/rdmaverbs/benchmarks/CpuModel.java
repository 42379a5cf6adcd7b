package io.rdmaverbs.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU the benchmarks run on, as {@code /proc/cpuinfo} names it ({@code model name}): the hot-path
 * figures differ by CPU (the fence of a volatile store, the cost of an arena acquire), so every run says
 * which one it measured.
 */
public final class CpuModel {

    private CpuModel() {
    }

    /** The first {@code model name} of {@code /proc/cpuinfo}, else the JVM's {@code os.arch}. */
    public static String name() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            // falls through to the architecture
        }
        return System.getProperty("os.arch");
    }
}
