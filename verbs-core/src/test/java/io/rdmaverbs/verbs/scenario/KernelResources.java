package io.rdmaverbs.verbs.scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the kernel holds for this process, from iproute2's {@code rdma resource show}: the leak check
 * behind every native scenario.
 *
 * <p>The kernel records the <em>thread</em> that created an object ({@code task_pid_vnr} of the
 * creating task), and JVM code never runs on the process's initial thread, so an object is this
 * process's when its recorded id is one of this process's threads. An object whose recording thread
 * has exited still belongs to a live process (objects die with their process's file descriptors), so it
 * is counted too: a leak is never missed, at the price of counting another process's object whose
 * creating thread ended (none in the soft-RoCE guest, where the test JVM is the only RDMA user).
 */
public final class KernelResources {

    private static final List<String> TYPES = List.of("pd", "cq", "qp", "mr", "srq", "ctx", "cm_id");
    private static final Pattern PID = Pattern.compile("\"pid\"\\s*:\\s*(\\d+)");
    private static final String SEPARATOR = "---rdma-resource---";

    private KernelResources() {
    }

    /** Objects per type owned by this process; types the installed {@code rdma} cannot show are omitted. */
    public static Map<String, Integer> ofThisProcess() {
        long self = ProcessHandle.current().pid();
        // One shell for all types: spawning a process from a big JVM is what costs, under qemu above all.
        StringBuilder script = new StringBuilder();
        for (String type : TYPES) {
            script.append("rdma -j resource show ").append(type).append(" 2>/dev/null || echo FAILED; echo ")
                    .append(SEPARATOR).append(';');
        }
        String[] outputs = run(script.toString()).split(SEPARATOR, -1);
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (int i = 0; i < TYPES.size() && i < outputs.length; i++) {
            String json = outputs[i].trim();
            if (json.isEmpty() || json.contains("FAILED")) {
                continue;
            }
            int n = 0;
            Matcher m = PID.matcher(json);
            while (m.find()) {
                if (ownedBy(self, Long.parseLong(m.group(1)))) {
                    n++;
                }
            }
            counts.put(TYPES.get(i), n);
        }
        return counts;
    }

    private static boolean ownedBy(long self, long recorded) {
        if (recorded == self || Files.exists(Path.of("/proc/self/task/" + recorded))) {
            return true;
        }
        Path status = Path.of("/proc/" + recorded + "/status");
        if (!Files.exists(status)) {
            return true; // the creating thread exited; its process lives on: see the class comment
        }
        try {
            return Files.readAllLines(status).stream().anyMatch(l -> l.equals("Tgid:\t" + self));
        } catch (IOException e) {
            return true;
        }
    }

    private static String run(String script) {
        try {
            Process p = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "";
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
