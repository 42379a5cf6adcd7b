package io.rdmaverbs.verbs.scenario;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ReceiveBatch;
import io.rdmaverbs.verbs.SendBatch;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.PostFailedException;

import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chains of work requests in one post ({@code ibv_post_send(3)}'s {@code next} links): what a provider
 * does with a chain longer than the queue, and the receive refill path as one call.
 */
final class BatchScenarios {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int BYTES = 64;
    private static final int SEND_WR = 16;

    private BatchScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("a send chain longer than the send queue posts what fits and names the first WR that "
                        + "did not (ENOMEM); a receive batch then completes exactly the posted ones",
                        BatchScenarios::sendChainLongerThanTheQueue),
                new Scenario("a batch holding a closed memory region is refused in Java, none of it posted; mended, "
                        + "it posts in one call",
                        BatchScenarios::closedRegionRefusesTheWholeBatch));
    }

    /**
     * Sends to a QP with no receive posted stall (RC, rnr_retry 7: the requester retries forever), so they
     * hold their send queue slots and the chain overflows the queue at a point the provider decides (it
     * rounds the queue up: rxe holds 31 WRs for max_send_wr 16).
     */
    static void sendChainLongerThanTheQueue(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        CompletionQueue cq = steps.make("ibv_create_cq", () -> ctx.createCompletionQueue(CompletionQueueSpec.of(256),
                "cq"));
        ProtectionDomain pd = steps.make("ibv_alloc_pd", () -> ctx.allocateProtectionDomain("pd"));
        QueuePair a = steps.make("ibv_create_qp_ex RC a", () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq,
                new QpCapabilities(SEND_WR, 1, 1, 1, 0)), "a"));
        QueuePair b = steps.make("ibv_create_qp_ex RC b", () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq,
                new QpCapabilities(1, 4 * SEND_WR, 1, 1, 0)), "b"));
        steps.ok("ibv_modify_qp RESET->INIT->RTR->RTS both", () -> Fixtures.connect(a, b, Fixtures.selfAddress(ctx),
                Fixtures.pathMtu(ctx)));
        MemoryRegion src = steps.make("ibv_reg_mr src", () -> pd.allocateMemory(BYTES, LOCAL, "src"));
        MemoryRegion dst = steps.make("ibv_reg_mr dst", () -> pd.allocateMemory(4L * SEND_WR * BYTES, LOCAL, "dst"));
        int chain = 4 * SEND_WR;
        try (SendBatch sends = a.newSendBatch(chain, 1); ReceiveBatch refill = b.newReceiveBatch(chain, 1);
                WorkCompletions wc = cq.newWorkCompletions(16)) {
            for (int i = 0; i < chain; i++) {
                sends.add().wrId(i).single(src, 0, BYTES);
            }
            PostFailedException overflow = (PostFailedException) steps.fails("ibv_post_send chain of 64 onto a queue "
                    + "of 16", Errno.ENOMEM, () -> a.postSend(sends));
            int posted = overflow.failedIndex();
            assertThat(posted).as("sends posted before the queue was full").isBetween(SEND_WR, chain - 1);
            assertThat(overflow.chainLength()).isEqualTo(chain);

            for (int i = 0; i < posted; i++) {
                refill.add().wrId(1000 + i).single(dst, (long) i * BYTES, BYTES);
            }
            steps.ok("ibv_post_recv batch refilling the stalled sends' receives", () -> b.postReceive(refill));

            Set<Long> sendIds = new HashSet<>();
            Set<Long> recvIds = new HashSet<>();
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (sendIds.size() + recvIds.size() < 2 * posted && System.nanoTime() < deadline) {
                int n = cq.poll(wc);
                for (int i = 0; i < n; i++) {
                    assertThat(wc.status(i)).as("completion of wr %d", wc.wrId(i)).isEqualTo(WcStatus.SUCCESS);
                    (wc.opcode(i) == WcOpcode.SEND ? sendIds : recvIds).add(wc.wrId(i));
                }
                if (n == 0) {
                    Thread.onSpinWait();
                }
            }
            assertThat(sendIds).as("the sends that completed are exactly those posted").hasSize(posted)
                    .allMatch(id -> id >= 0 && id < posted);
            assertThat(recvIds).hasSize(posted).allMatch(id -> id >= 1000 && id < 1000 + posted);
            assertThat(cq.poll(wc)).as("nothing of the unposted rest completes").isZero();
        }
    }

    static void closedRegionRefusesTheWholeBatch(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        TrafficScenarios.RcPair p = TrafficScenarios.rcPair(run);
        MemoryRegion kept = steps.make("ibv_reg_mr kept", () -> p.pd().allocateMemory(BYTES, LOCAL, "kept"));
        MemoryRegion gone = steps.make("ibv_reg_mr gone", () -> p.pd().allocateMemory(BYTES, LOCAL, "gone"));
        try (ReceiveBatch batch = p.b().newReceiveBatch(4, 1); WorkCompletions wc = p.cq().newWorkCompletions(1)) {
            batch.add().wrId(1).single(kept, 0, BYTES);
            batch.add().wrId(2).single(gone, 0, BYTES);
            batch.add().wrId(3).single(kept, 0, BYTES);
            steps.ok("ibv_dereg_mr gone", gone::close);

            steps.rejected("ibv_post_recv of a batch naming a closed region", IllegalStateException.class,
                    () -> p.b().postReceive(batch));

            batch.get(1).single(kept, 0, BYTES);
            steps.ok("ibv_post_recv of the batch once mended", () -> p.b().postReceive(batch));
            try (SendBatch sends = p.a().newSendBatch(3, 1)) {
                for (int i = 0; i < 3; i++) {
                    sends.add().wrId(10 + i).single(kept, 0, BYTES);
                }
                steps.ok("ibv_post_send of three", () -> p.a().postSend(sends));
            }
            Fixtures.pollFor(p.cq(), wc, 6, WAIT);
        }
    }
}
