package io.rdmaverbs.verbs.scenario;

import java.time.Duration;
import java.util.List;

import io.rdmaverbs.verbs.CompletionPoller;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
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
        DeviceContext ctx = run.open();
        CompletionQueue cq = steps.make("ibv_create_cq_ex standard fields", () -> ctx.createCompletionQueue(
                CompletionQueueSpec.of(32).withExtendedPolling(CompletionField.STANDARD), "cq"));
        ProtectionDomain pd = steps.make("ibv_alloc_pd", () -> ctx.allocateProtectionDomain("pd"));
        QueuePair a = steps.make("ibv_create_qp_ex RC a", () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS), "a"));
        QueuePair b = steps.make("ibv_create_qp_ex RC b", () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS), "b"));
        steps.ok("ibv_modify_qp RESET->INIT->RTR->RTS both", () -> Fixtures.connect(a, b, Fixtures.selfAddress(ctx),
                Fixtures.pathMtu(ctx)));
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
        DeviceContext ctx = run.open();
        CompletionQueue cq;
        try {
            cq = steps.make("ibv_create_cq_ex with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP", () -> ctx.createCompletionQueue(
                    CompletionQueueSpec.of(8).withExtendedPolling(CompletionField.BYTE_LEN,
                            CompletionField.COMPLETION_TIMESTAMP), "stamped"));
        } catch (VerbsException e) {
            assertThat(e.errno()).as("a device without timestamps refuses the CQ (%s)", e.getMessage())
                    .isEqualTo(Errno.EOPNOTSUPP);
            assertThat(e.verb()).isEqualTo("ibv_create_cq_ex");
            return;
        }
        ProtectionDomain pd = steps.make("ibv_alloc_pd", () -> ctx.allocateProtectionDomain("pd"));
        QueuePair a = steps.make("ibv_create_qp_ex RC a", () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS), "a"));
        QueuePair b = steps.make("ibv_create_qp_ex RC b", () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS), "b"));
        steps.ok("ibv_modify_qp RESET->INIT->RTR->RTS both", () -> Fixtures.connect(a, b, Fixtures.selfAddress(ctx),
                Fixtures.pathMtu(ctx)));
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
