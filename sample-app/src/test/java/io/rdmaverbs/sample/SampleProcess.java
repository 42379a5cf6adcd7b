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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged sample started as a user starts it ({@code java [jvm options] -jar}), on a free port,
 * its output in a log file; HTTP calls to it, and a SIGTERM to end it. The process ITs share it.
 */
final class SampleProcess implements AutoCloseable {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Process process;
    private final Path log;
    private final String base;

    private SampleProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.base = "http://127.0.0.1:" + port;
    }

    /**
     * Starts the jar the build packaged ({@code sample.jar}), logging to {@code logName} beside
     * {@code sample.log}, and waits until its health endpoint answers.
     */
    static SampleProcess start(String logName, List<String> jvmOptions, String... arguments) throws Exception {
        Path jar = Path.of(System.getProperty("sample.jar"));
        Path log = Path.of(System.getProperty("sample.log")).resolveSibling(logName);
        int port = freePort();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString(), "--server.port=" + port));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        SampleProcess sample = new SampleProcess(process, log, port);
        sample.awaitUp(Duration.ofSeconds(60));
        return sample;
    }

    String get(String path, int status) throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + path)).GET());
        assertThat(r.statusCode()).as("GET %s: %s", path, r.body()).isEqualTo(status);
        return r.body();
    }

    String post(String path, int status) throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + path))
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(r.statusCode()).as("POST %s: %s", path, r.body()).isEqualTo(status);
        return r.body();
    }

    /**
     * {@code method path} with its own timeout, and whatever comes back: no status is asserted, and a
     * refused connection or a timeout is thrown as the client sees it (the soak classifies them).
     */
    HttpResponse<String> request(String method, String path, Duration timeout) throws IOException,
            InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).method(method,
                HttpRequest.BodyPublishers.noBody()).timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Sends SIGTERM and waits for the exit, which must come within {@code bound} with the JVM's status
     * for SIGTERM (143).
     *
     * @return how long the exit took
     */
    Duration terminate(Duration bound) throws InterruptedException {
        long signalled = System.nanoTime();
        process.destroy();
        assertThat(process.waitFor(bound.toSeconds(), TimeUnit.SECONDS)).as("exited within %s", bound).isTrue();
        assertThat(process.exitValue()).as("the JVM's status after SIGTERM").isEqualTo(143);
        return Duration.ofNanos(System.nanoTime() - signalled);
    }

    /** Everything the process printed so far. */
    String output() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }

    private void awaitUp(Duration bound) throws Exception {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            assertThat(process.isAlive()).as("the application is still running (see %s)", log).isTrue();
            try {
                if (send(HttpRequest.newBuilder(URI.create(base + "/actuator/health")).GET()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // Not listening yet.
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the application did not come up within " + bound + " (see " + log + ")");
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
