package io.rdmaverbs.verbs.scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the kernel holds for this process, from iproute2's {@code rdma resource show}: the leak check
 * behind every native scenario. Counts objects whose {@code pid} is this JVM's.
 */
public final class KernelResources {

    private static final List<String> TYPES = List.of("pd", "cq", "qp", "mr", "srq", "ctx");
    private static final Pattern PID = Pattern.compile("\"pid\"\\s*:\\s*(\\d+)");

    private KernelResources() {
    }

    /** Objects per type owned by this process; types the installed {@code rdma} cannot show are omitted. */
    public static Map<String, Integer> ofThisProcess() {
        long pid = ProcessHandle.current().pid();
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String type : TYPES) {
            String json = show(type);
            if (json == null) {
                continue;
            }
            int n = 0;
            Matcher m = PID.matcher(json);
            while (m.find()) {
                if (Long.parseLong(m.group(1)) == pid) {
                    n++;
                }
            }
            counts.put(type, n);
        }
        return counts;
    }

    private static String show(String type) {
        try {
            Process p = new ProcessBuilder("rdma", "-j", "resource", "show", type).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return null;
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
