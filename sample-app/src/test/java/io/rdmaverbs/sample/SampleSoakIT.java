package io.rdmaverbs.sample;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bounded soak of the packaged sample on the simulated provider: several HTTP clients exchange
 * messages over RC for a fixed count each, while resources are created and closed at run time
 * ({@code POST /rdma/churn}), port 1 goes down and up again, the device dies (IBV_EVENT_DEVICE_FATAL),
 * and SIGTERM comes in the middle of it all. The assertions are invariants, not counts: every request
 * gets a complete answer or an error whose body names what failed (no hang, no lost answer, no bare 500),
 * no exchange succeeds on a dead device, the process exits with 143 within the shutdown bound, and the
 * simulated device holds nothing afterwards. The counts go to a summary line.
 *
 * <p>{@code -Dsample.soak.seconds=} changes how long the load runs before SIGTERM (default 60).
 */
class SampleSoakIT {

    private static final int CLIENTS = 6;
    private static final Duration LOAD = Duration.ofSeconds(Long.getLong("sample.soak.seconds", 60));
    /**
     * The count per client: 2000 a second of load, about three times what a client gets through on the
     * project's machine, so the SIGTERM comes while every client is still sending.
     */
    private static final int EXCHANGES_PER_CLIENT = Math.toIntExact(LOAD.toSeconds() * 2_000);
    /** The device dies at two thirds of the load: the last third are exchanges on a dead device. */
    private static final Duration FATAL_AT = LOAD.multipliedBy(2).dividedBy(3);
    private static final Duration PORT_FLAP_EVERY = Duration.ofSeconds(4);
    private static final Duration PORT_DOWN_FOR = Duration.ofMillis(300);
    private static final Duration SHUTDOWN_PHASE = Duration.ofSeconds(10);
    /** {@code spring.lifecycle.timeout-per-shutdown-phase} plus a margin for a JVM on a loaded machine. */
    private static final Duration EXIT_BOUND = SHUTDOWN_PHASE.plusSeconds(15);
    /** Longer than the sample's own 10 s completion wait: a request that takes longer has hung. */
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(20);
    private static final Pattern CHURN_TOTALS = Pattern.compile(
            "resource churn: (\\d+) rounds, (\\d+) resources created, (\\d+) closed");

    private final SoakTally tally = new SoakTally();
    /** Requests whose connection closed without an answer after SIGTERM: lost only if the server took them. */
    private final List<String> unansweredAfterSigterm = new CopyOnWriteArrayList<>();
    private final LongAdder portFlaps = new LongAdder();
    private final AtomicLong fatalAnsweredAt = new AtomicLong(Long.MAX_VALUE);
    private volatile long sigtermAt = Long.MAX_VALUE;
    private SampleProcess sample;

    @AfterEach
    void killIfStillRunning() {
        if (sample != null) {
            sample.close();
        }
    }

    @Test
    void answersEveryRequestUnderFaultsAndResourceChurnThenExitsOnSigtermLeavingTheDeviceEmpty() throws Exception {
        Path accessLog = Path.of(System.getProperty("sample.log")).resolveSibling("sample-soak-access");
        // Tomcat appends to the day's file: a previous run's requests would pass for this run's.
        deleteAccessLogs(accessLog);
        sample = SampleProcess.start("sample-soak.log", List.of(), "--rdma.verbs.teardown.timeout=2s",
                // Which requests the server took, whatever became of their answers.
                "--server.tomcat.accesslog.enabled=true", "--server.tomcat.accesslog.directory=" + accessLog,
                "--server.tomcat.accesslog.pattern=%r %s", "--server.tomcat.accesslog.buffered=false",
                "--spring.lifecycle.timeout-per-shutdown-phase=" + SHUTDOWN_PHASE.toSeconds() + "s",
                // One line per exchange would make the log the bottleneck.
                "--logging.level.io.rdmaverbs.sample.exchange.LoopbackExchange=WARN");

        AtomicInteger clientsSending = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            threads.add(Thread.ofPlatform().name("soak-client-" + c).start(() -> exchanges(client, clientsSending)));
        }
        threads.add(Thread.ofPlatform().name("soak-churn").start(this::churn));
        Thread faults = Thread.ofPlatform().name("soak-faults").start(this::faults);

        Thread.sleep(LOAD);
        int sendingAtSigterm = clientsSending.get();
        sigtermAt = System.nanoTime();
        Duration took = sample.terminate(EXIT_BOUND);
        faults.interrupt();
        faults.join(CLIENT_TIMEOUT);
        for (Thread t : threads) {
            t.join(CLIENT_TIMEOUT.plusSeconds(5));
            assertThat(t.isAlive()).as("%s ended after the process exited", t.getName()).isFalse();
        }

        String taken = accessLogOf(accessLog);
        assertThat(taken).as("the access log names each request as the check below reads it")
                .contains("GET /rdma/exchange?message=c0-0 HTTP/1.1 200");
        for (String request : unansweredAfterSigterm) {
            if (taken.contains(request + " HTTP/1.1")) {
                tally.defect(request + ": taken by the server after SIGTERM, its answer lost");
            } else {
                tally.count("closed unread after SIGTERM");
            }
        }
        String output = sample.output();
        Matcher churn = CHURN_TOTALS.matcher(output);
        assertThat(churn.find()).as("the churn's totals in the sample's log").isTrue();
        System.out.printf("soak summary: %d s load, %d clients (%d still sending at SIGTERM), requests %s, "
                + "faults injected: %d port flaps, %d device fatal; resources created %s, closed %s in %s rounds; "
                + "exit 143 %d ms after SIGTERM%n", LOAD.toSeconds(), CLIENTS, sendingAtSigterm, tally.snapshot(),
                portFlaps.sum(), fatalAnsweredAt.get() == Long.MAX_VALUE ? 0 : 1, churn.group(2), churn.group(3),
                churn.group(1), took.toMillis());

        assertThat(tally.keptDefects()).as("requests without a complete answer or a named error (%d in all)",
                tally.defects()).isEmpty();
        assertThat(sendingAtSigterm).as("clients still sending when SIGTERM came").isPositive();
        assertThat(tally.count("exchange ok", false)).as("exchanges answered before the faults").isPositive();
        assertThat(portFlaps.sum()).as("port flaps injected").isPositive();
        assertThat(fatalAnsweredAt.get()).as("the device fatal was injected").isNotEqualTo(Long.MAX_VALUE);
        assertThat(tally.count("exchange 503 EIO", false)).as("exchanges refused by the dead device").isPositive();
        assertThat(Long.parseLong(churn.group(2))).as("resources created at run time").isPositive()
                .isEqualTo(Long.parseLong(churn.group(3)));
        assertThat(output).contains("RDMA verbs teardown (cascade", "simulated device mlx5_0 holds no objects after "
                + "shutdown").doesNotContain("still holds objects", "left open:");
    }

    private void exchanges(int client, AtomicInteger sending) {
        sending.incrementAndGet();
        try {
            for (int n = 0; n < EXCHANGES_PER_CLIENT; n++) {
                String message = "c" + client + "-" + n;
                if (!call("exchange", "GET", "/rdma/exchange?message=" + message, "\"received\":\"" + message + "\"")) {
                    return;
                }
            }
        } finally {
            sending.decrementAndGet();
        }
    }

    private void churn() {
        for (int n = 0; ; n++) {
            if (!call("churn", "POST", "/rdma/churn?message=churn-" + n, "\"receiveStatus\":\"SUCCESS\"")) {
                return;
            }
            pause(Duration.ofMillis(20));
        }
    }

    /** Port 1 down and up every few seconds; the device fatal once, at {@link #FATAL_AT}. */
    private void faults() {
        long started = System.nanoTime();
        try {
            while (System.nanoTime() < sigtermAt) {
                Thread.sleep(PORT_FLAP_EVERY);
                if (fatalAnsweredAt.get() == Long.MAX_VALUE && System.nanoTime() - started >= FATAL_AT.toNanos()) {
                    inject("/rdma/faults/device-fatal");
                    fatalAnsweredAt.set(System.nanoTime());
                    continue;
                }
                inject("/rdma/faults/port?state=DOWN");
                Thread.sleep(PORT_DOWN_FOR);
                inject("/rdma/faults/port?state=ACTIVE");
                portFlaps.increment();
            }
        } catch (InterruptedException stopped) {
            // The process exited: no more faults.
        } catch (IOException | AssertionError e) {
            if (System.nanoTime() < sigtermAt) {
                tally.defect("fault injection failed before SIGTERM: " + e.getMessage());
            }
        }
    }

    private void inject(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = sample.request("POST", path, CLIENT_TIMEOUT);
        assertThat(r.statusCode()).as("POST %s: %s", path, r.body()).isEqualTo(200);
    }

    /**
     * One request, classified. Returns false when the caller should stop: the process refuses
     * connections after SIGTERM.
     */
    private boolean call(String what, String method, String path, String expected) {
        long started = System.nanoTime();
        try {
            HttpResponse<String> r = sample.request(method, path, CLIENT_TIMEOUT);
            String body = r.body();
            if (r.statusCode() == 200) {
                if (!body.contains(expected)) {
                    tally.defect(method + " " + path + ": 200 without " + expected + ": " + body);
                } else if (started > fatalAnsweredAt.get()) {
                    tally.defect(method + " " + path + ": succeeded on a dead device: " + body);
                } else {
                    tally.count(what + " ok");
                }
            } else if (r.statusCode() == 500 || body.isBlank()) {
                tally.defect(method + " " + path + ": " + r.statusCode() + " without a named failure: " + body);
            } else {
                String failure = SoakTally.namedFailure(body);
                tally.count(what + " " + r.statusCode() + " " + failure);
                if (failure.equals("unnamed")) {
                    tally.defect(method + " " + path + ": " + r.statusCode() + " naming no verb or status: " + body);
                }
            }
            return true;
        } catch (HttpTimeoutException hung) {
            tally.defect(method + " " + path + ": no answer within " + CLIENT_TIMEOUT);
            return true;
        } catch (ConnectException refused) {
            if (started < sigtermAt) {
                tally.defect(method + " " + path + ": connection refused before SIGTERM");
            } else {
                tally.count(what + " refused after SIGTERM");
            }
            return false;
        } catch (IOException closed) {
            // The connection closed without an answer. After SIGTERM the graceful shutdown closes idle
            // keep-alive connections: a request sent on one was never read (the access log tells).
            if (started < sigtermAt) {
                tally.defect(method + " " + path + ": " + closed + " before SIGTERM");
                return true;
            }
            unansweredAfterSigterm.add(method + " " + path);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void deleteAccessLogs(Path directory) throws IOException {
        if (Files.isDirectory(directory)) {
            try (Stream<Path> files = Files.list(directory)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    private static String accessLogOf(Path directory) throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.sorted().toList()) {
                all.append(Files.readString(file, StandardCharsets.UTF_8));
            }
        }
        return all.toString();
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
