package io.rdmaverbs.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged application as a user runs it: {@code java -jar}, real HTTP calls, then SIGTERM. It must
 * exit within a bound with the JVM's status for SIGTERM (143), log its teardown children first, and
 * leave nothing open, although a lease and an unacknowledged completion event were left on purpose.
 */
class SampleProcessIT {

    /** Teardown timeout 2 s plus start-up of the shutdown hooks; far below a hang. */
    private static final Duration EXIT_BOUND = Duration.ofSeconds(30);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Process process;

    @AfterEach
    void killIfStillRunning() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
    }

    @Test
    void runsExchangesReportsStuckReferencesAndShutsDownCleanlyOnSigterm() throws Exception {
        Path jar = Path.of(System.getProperty("sample.jar"));
        Path log = Path.of(System.getProperty("sample.log"));
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString(), "--server.port=" + port, "--rdma.verbs.teardown.timeout=2s"));
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();

        String base = "http://127.0.0.1:" + port;
        awaitUp(base + "/actuator/health", Duration.ofSeconds(60));

        String rc = get(base + "/rdma/exchange?message=hello-rc", 200);
        assertThat(rc).contains("\"received\":\"hello-rc\"", "\"sendStatus\":\"SUCCESS\"",
                "\"receiveStatus\":\"SUCCESS\"", "\"acknowledged\":true");
        String xrc = get(base + "/rdma/xrc?message=hello-xrc", 200);
        assertThat(xrc).contains("\"transport\":\"XRC\"", "\"received\":\"hello-xrc\"");

        String health = get(base + "/actuator/health/rdmaVerbs", 200);
        // Idle: the structure (a PD with its QPs...) is only counted; nothing needs attention.
        assertThat(health).contains("\"status\":\"UP\"", "\"stuckReferences\":[]", "\"structuralReferences\":")
                .doesNotContain("ibv_destroy_comp_channel");

        post(base + "/rdma/stuck/lease?resource=pd&holder=e2e-borrower", 200);
        post(base + "/rdma/stuck/unacknowledged-event", 200);
        String stuck = get(base + "/actuator/health/rdmaVerbs", 200);
        assertThat(stuck).contains("\"status\":\"UP\"", "\"holder\":\"e2e-borrower\"", "UNACKNOWLEDGED_CQ_EVENTS",
                "BLOCKS_FOREVER");
        assertThat(get(base + "/actuator/verbs?format=mermaid", 200)).startsWith("flowchart");

        long signalled = System.nanoTime();
        process.destroy(); // SIGTERM
        assertThat(process.waitFor(EXIT_BOUND.toSeconds(), TimeUnit.SECONDS)).as("exited within %s", EXIT_BOUND)
                .isTrue();
        Duration took = Duration.ofNanos(System.nanoTime() - signalled);
        assertThat(process.exitValue()).as("the JVM's status after SIGTERM").isEqualTo(143);

        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(output).contains("RDMA verbs teardown (cascade", "left 0", "cleared first (cascade):",
                "revoked: pd 'pd'", "acknowledged: cq 'cq'", "simulated device mlx5_0 holds no objects after shutdown");
        assertThat(output).doesNotContain("left open:", "still holds objects");
        int requester = output.indexOf("ibv_destroy_qp qp 'requester'");
        int cq = output.indexOf("ibv_destroy_cq cq 'cq'");
        int channel = output.indexOf("ibv_destroy_comp_channel channel 'events'");
        int target = output.indexOf("ibv_destroy_qp qp 'xrc-target'");
        int xrcd = output.indexOf("ibv_close_xrcd xrcd 'xrcd'");
        int mr = output.indexOf("ibv_dereg_mr mr 'buffers'");
        int pd = output.indexOf("ibv_dealloc_pd pd 'pd'");
        int device = output.indexOf("ibv_close_device ctx 'hca'");
        assertThat(List.of(requester, cq, channel, target, xrcd, mr, pd, device)).doesNotContain(-1);
        assertThat(requester).as("QP before its CQ").isLessThan(cq);
        assertThat(cq).as("CQ before its channel").isLessThan(channel);
        assertThat(target).as("XRC receive QP before its domain").isLessThan(xrcd);
        assertThat(mr).as("MR before its PD").isLessThan(pd);
        assertThat(Math.max(channel, pd)).as("everything before the device").isLessThan(device);
        System.out.println("sample stopped " + took.toMillis() + " ms after SIGTERM");
    }

    private void awaitUp(String url, Duration bound) throws Exception {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            assertThat(process.isAlive()).as("the application is still running (see %s)", System.getProperty("sample.log"))
                    .isTrue();
            try {
                if (send(HttpRequest.newBuilder(URI.create(url)).GET()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // Not listening yet.
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the application did not come up within " + bound);
    }

    private String get(String url, int status) throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url)).GET());
        assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(status);
        return r.body();
    }

    private String post(String url, int status) throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(r.statusCode()).as("POST %s: %s", url, r.body()).isEqualTo(status);
        return r.body();
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
