package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * "No downcall that can wait for a lock held across Java code is {@code critical}", and the misuse that would
 * spin on such a lock forever is refused in Java: each scenario of {@link ForkedLockHolders} in a JVM of its
 * own, on fake ops that lock as rxe and mlx5 do. A JVM that does not finish within 60 s hung (a safepoint
 * waiting for a thread that spins inside a critical downcall for a lock the stopped thread holds): it is
 * killed and the test fails. Before issue 20's fix every scenario but {@code error-in-wr-start} hung.
 */
class CriticalDowncallTest {

    private static Path fakeOps;

    @BeforeAll
    static void buildFakeOps() throws IOException {
        NativePrerequisites.require(CCompiler.unavailable());
        fakeOps = CCompiler.sharedLibrary("fake_ops.c");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"start_poll", "poll_cq", "req_notify_cq", "wr_start", "post_send"})
    void aThreadWaitingForTheLockAnotherThreadsBatchOrSessionHoldsLetsTheJvmReachItsSafepoints(String verb)
            throws Exception {
        List<String> out = forked(verb);

        assertThat(out).as("the forked JVM's output").contains(verb + " ok");
    }

    @Test
    void theThreadHoldingABatchOrSessionIsRefusedEveryVerbThatWouldWaitForItsOwnLock() throws Exception {
        List<String> out = forked("own-thread");

        assertThat(out.stream().filter(l -> l.startsWith("refused=")).map(l -> l.replaceAll("@0x[0-9a-f]+", "")))
                .containsExactly(
                        "refused=IllegalStateException: ibv_cq: ibv_poll_cq inside this thread's own batch would wait "
                                + "forever for the CQ's lock the batch holds: end the batch first",
                        "refused=IllegalStateException: ibv_cq: ibv_req_notify_cq inside this thread's own batch would "
                                + "wait forever for the CQ's lock the batch holds: end the batch first",
                        "refused=IllegalStateException: ibv_cq: ibv_start_poll inside this thread's own batch (a "
                                + "second poller of the CQ, or a start without an end): the CQ's lock does not nest, so "
                                + "it would spin forever; end the batch first",
                        "refused=IllegalStateException: ibv_cq: destroying it inside this thread's own batch would "
                                + "wait forever for that batch to end: end the batch first",
                        "refused=IllegalStateException: ibv_qp: ibv_post_send inside this thread's own session would "
                                + "wait forever for the send queue's lock the session holds: end the session first",
                        "refused=IllegalStateException: ibv_qp: ibv_wr_start inside this thread's own session (a "
                                + "second builder of the QP, or a start without an end): the send queue's lock does not "
                                + "nest, so it would spin forever; end the session first",
                        "refused=IllegalStateException: ibv_qp: destroying it inside this thread's own session would "
                                + "wait forever for that session to end: end the session first");
        assertThat(out).contains("own-thread ok");
    }

    /**
     * Issue 20's third defect: {@code wrStart} let go of the session only on a {@code RuntimeException}. Caught by
     * the mutation that catches {@code RuntimeException} again in {@code NativeQpExOps.wrStart}: the session
     * then stays held by the thread that failed, its next start is refused as nested ({@code second=
     * java.lang.IllegalStateException}), and the destroy waits.
     */
    @Test
    void anErrorBetweenTakingTheSessionAndReturningFromWrStartLetsTheSessionGo() throws Exception {
        List<String> out = forked("error-in-wr-start");

        assertThat(out).contains("first=java.lang.OutOfMemoryError", "second=none", "destroy=returned",
                "error-in-wr-start ok");
    }

    private static List<String> forked(String scenario) throws IOException, InterruptedException {
        Path log = Files.createTempFile("forked-lock-holders-", ".log");
        try {
            Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                    ForkedLockHolders.class.getName(), fakeOps.toString(), scenario)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean finished = process.waitFor(60, TimeUnit.SECONDS);
            if (!finished) {
                process.destroyForcibly().waitFor();
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(finished).as("the forked JVM of '%s' finished within 60 s (it hung otherwise); output:%n%s",
                    scenario, output).isTrue();
            assertThat(process.exitValue()).as("exit code of '%s'; output:%n%s", scenario, output).isZero();
            return output.lines().toList();
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
