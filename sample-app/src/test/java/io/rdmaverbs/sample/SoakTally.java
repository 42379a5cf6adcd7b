package io.rdmaverbs.sample;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the soak's clients saw, counted by kind ({@code exchange ok}, {@code exchange 503 EIO}, ...), and
 * the outcomes no request may have (a hang, a lost answer, an error without a body), kept verbatim.
 * Thread-safe: every client thread records into the same tally.
 */
final class SoakTally {

    /** The errno of a failed verb, as VerbsException words it: "... failed with EIO (5): ...". */
    private static final Pattern ERRNO = Pattern.compile("failed with (E[A-Z0-9]+) \\(");
    /** The first error status of a failed work request: "... failed: send RETRY_EXC_ERR, receive ...". */
    private static final Pattern WC_STATUS = Pattern.compile("(?:send|receive) ([A-Z_]+_ERR)");
    private static final int KEPT = 20;

    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final LongAdder defects = new LongAdder();
    private final List<String> kept = new CopyOnWriteArrayList<>();

    void count(String kind) {
        counts.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    /** An outcome the soak forbids; counted, and the first few kept for the assertion message. */
    void defect(String what) {
        defects.increment();
        count("DEFECT");
        if (kept.size() < KEPT) {
            kept.add(what);
        }
    }

    /** What an error body names: the errno of the failed verb, else the error completion's status. */
    static String namedFailure(String body) {
        Matcher errno = ERRNO.matcher(body);
        if (errno.find()) {
            return errno.group(1);
        }
        Matcher status = WC_STATUS.matcher(body);
        return status.find() ? status.group(1) : "unnamed";
    }

    long count(String kind, boolean prefix) {
        return counts.entrySet().stream().filter(e -> prefix ? e.getKey().startsWith(kind) : e.getKey().equals(kind))
                .mapToLong(e -> e.getValue().sum()).sum();
    }

    long defects() {
        return defects.sum();
    }

    List<String> keptDefects() {
        return List.copyOf(kept);
    }

    /** Every kind with its count, sorted by kind. */
    Map<String, Long> snapshot() {
        Map<String, Long> sorted = new TreeMap<>();
        counts.forEach((kind, n) -> sorted.put(kind, n.sum()));
        return sorted;
    }
}
