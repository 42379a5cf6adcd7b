package io.rdmaverbs.benchmarks.connection;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A soft-RoCE device's packet counters ({@code /sys/class/infiniband/DEV/ports/1/hw_counters}, rxe's, cumulative
 * since the device was made), read around one case: packets sent and received per message say how many a
 * message costs on the wire (its frame header included), and the RNR counters that the credits kept every
 * SEND from meeting an empty receive queue. A device without these files (the simulated provider, an HCA
 * with other counters) gives no words.
 *
 * @param values the counters read, by name
 */
record WireCounters(Map<String, Long> values) {

    static final List<String> NAMES = List.of("sent_pkts", "rcvd_pkts", "rcvd_rnr_err", "send_rnr_err",
            "duplicate_request", "completer_retry_err");

    static WireCounters of(String device) {
        Map<String, Long> values = new LinkedHashMap<>();
        Path dir = Path.of("/sys/class/infiniband", device, "ports", "1", "hw_counters");
        for (String name : NAMES) {
            try {
                values.put(name, Long.parseLong(Files.readString(dir.resolve(name)).strip()));
            } catch (IOException | NumberFormatException absent) {
                // not rxe: this counter is not reported
            }
        }
        return new WireCounters(values);
    }

    /** {@code side_wire.NAME N} per message for each counter, since {@code earlier}. */
    String perMessageSince(WireCounters earlier, String side, long messages) {
        StringBuilder b = new StringBuilder();
        values.forEach((name, v) -> {
            Long e = earlier.values.get(name);
            if (e != null) {
                b.append(String.format(Locale.ROOT, " %s_wire.%s %.3f", side, name, (double) (v - e) / messages));
            }
        });
        return b.toString().strip();
    }
}
