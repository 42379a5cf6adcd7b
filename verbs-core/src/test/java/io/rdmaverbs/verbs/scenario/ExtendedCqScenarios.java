package io.rdmaverbs.verbs.scenario;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.rdmaverbs.verbs.CompletionPoller;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcFlag;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

import static io.rdmaverbs.verbs.scenario.Fixtures.CAPS;
import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The extended CQ ({@code ibv_create_cq_ex(3)}): polled with {@code ibv_start_poll} and the
 * {@code ibv_wc_read_*} accessors, and a field the device cannot report refused at create.
 */
final class ExtendedCqScenarios {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int BYTES = 128;

    private ExtendedCqScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("an extended CQ reports a send/recv with immediate data through ibv_start_poll and "
                        + "ibv_wc_read_*", ExtendedCqScenarios::extendedPoll),
                new Scenario("an extended CQ asking for completion timestamps is created where the device reports "
                        + "them and refused with EOPNOTSUPP where it does not (rxe)",
                        ExtendedCqScenarios::timestampWhereSupported));
    }

    /**
     * One completion per batch (start, read, end): rdma-core 44's rxe corrupts its CQ when
     * {@code ibv_end_poll} follows an {@code ibv_next_poll} that found nothing (see CompletionPoller).
     */
    static void extendedPoll(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DataPathScenarios.Pair p = DataPathScenarios.pair(run, CompletionQueueSpec.of(32)
                .withExtendedPolling(CompletionField.STANDARD), CAPS, Set.of());
        CompletionQueue cq = p.cq();
        ProtectionDomain pd = p.pd();
        QueuePair a = p.a();
        QueuePair b = p.b();
        MemoryRegion src = steps.make("ibv_reg_mr src", () -> pd.allocateMemory(BYTES, LOCAL, "src"));
        MemoryRegion dst = steps.make("ibv_reg_mr dst", () -> pd.allocateMemory(BYTES, LOCAL, "dst"));
        try (ReceiveRequest recv = b.newReceiveRequest(1).wrId(2).single(dst, 0, BYTES);
                SendRequest send = a.newSendRequest(1).wrId(1).opcode(SendOpcode.SEND_WITH_IMM).immediateData(0x0BADCAFE)
                        .single(src, 0, BYTES)) {
            steps.ok("ibv_post_recv", () -> b.postReceive(recv));
            steps.ok("ibv_post_send SEND_WITH_IMM", () -> a.postSend(send));
            CompletionPoller poller = cq.newPoller();
            boolean sawSend = false;
            boolean sawRecv = false;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!(sawSend && sawRecv) && System.nanoTime() < deadline) {
                if (!poller.start()) {
                    Thread.onSpinWait();
                    continue;
                }
                try {
                    assertThat(poller.status()).isEqualTo(WcStatus.SUCCESS);
                    if (poller.opcode() == WcOpcode.SEND) {
                        assertThat(poller.wrId()).isEqualTo(1);
                        assertThat(poller.qpNum()).isEqualTo(a.qpNum());
                        sawSend = true;
                    } else {
                        assertThat(poller.opcode()).isEqualTo(WcOpcode.RECV);
                        assertThat(poller.wrId()).isEqualTo(2);
                        assertThat(poller.byteLength()).isEqualTo(BYTES);
                        assertThat(poller.qpNum()).isEqualTo(b.qpNum());
                        assertThat(poller.wcFlags() & WcFlag.WITH_IMM).isNotZero();
                        assertThat(poller.immediateData()).isEqualTo(0x0BADCAFE);
                        sawRecv = true;
                    }
                } finally {
                    poller.end();
                }
            }
            assertThat(sawSend && sawRecv).as("both completions within %s", WAIT).isTrue();
            assertThat(poller.start()).as("nothing left: start_poll answers ENOENT").isFalse();
        }
    }

    static void timestampWhereSupported(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DataPathScenarios.Pair p;
        try {
            p = DataPathScenarios.pair(run, CompletionQueueSpec.of(8).withExtendedPolling(CompletionField.BYTE_LEN,
                    CompletionField.COMPLETION_TIMESTAMP), CAPS, Set.of());
        } catch (VerbsException e) {
            assertThat(e.verb()).as("the CQ is what is refused (%s)", e.getMessage()).isEqualTo("ibv_create_cq_ex");
            assertThat(e.errno()).as("a device without timestamps refuses the CQ").isEqualTo(Errno.EOPNOTSUPP);
            return;
        }
        CompletionQueue cq = p.cq();
        QueuePair a = p.a();
        ProtectionDomain pd = p.pd();
        MemoryRegion src = steps.make("ibv_reg_mr src", () -> pd.allocateMemory(BYTES, LOCAL, "src"));
        try (SendRequest write = a.newSendRequest(1).opcode(SendOpcode.RDMA_WRITE).remote(src.address(), src.rkey())
                .single(src, 0, 8)) {
            steps.ok("ibv_post_send RDMA_WRITE", () -> a.postSend(write));
        }
        CompletionPoller poller = cq.newPoller();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!poller.start()) {
            if (System.nanoTime() > deadline) {
                fail("no completion within %s", WAIT);
            }
            Thread.onSpinWait();
        }
        try {
            assertThat(poller.completionTimestamp()).as("the completion's timestamp").isPositive();
        } finally {
            poller.end();
        }
    }
}
