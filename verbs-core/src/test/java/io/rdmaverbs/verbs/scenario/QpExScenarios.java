package io.rdmaverbs.verbs.scenario;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.WorkRequestBuilder;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcFlag;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;

import static io.rdmaverbs.verbs.scenario.Fixtures.CAPS;
import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The new post API ({@code ibv_wr_post(3)}, {@code ibv_qp_ex}) on an RC loopback pair, and an operation
 * the transport cannot do refused at create.
 */
final class QpExScenarios {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Set<SendOpcode> ALL_RC = EnumSet.of(SendOpcode.SEND, SendOpcode.SEND_WITH_IMM,
            SendOpcode.RDMA_WRITE, SendOpcode.RDMA_WRITE_WITH_IMM, SendOpcode.RDMA_READ,
            SendOpcode.ATOMIC_FETCH_AND_ADD, SendOpcode.ATOMIC_CMP_AND_SWP);
    private static final Set<AccessFlag> REMOTE_ALL = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    private QpExScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("ibv_wr_* posts a send with immediate data, an RDMA write, an RDMA read and both atomics "
                        + "on an RC loopback pair in one session", QpExScenarios::oneSessionOfEveryOperation),
                new Scenario("a UD QP asking the new post API for RDMA writes is refused with EOPNOTSUPP",
                        QpExScenarios::udWithRdmaWriteRefused));
    }

    static void oneSessionOfEveryOperation(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DataPathScenarios.Pair p = DataPathScenarios.pair(run, CAPS, ALL_RC);
        MemoryRegion local = steps.make("ibv_reg_mr local", () -> p.pd().allocateMemory(256, LOCAL, "local"));
        MemoryRegion remote = steps.make("ibv_reg_mr remote", () -> p.pd().allocateMemory(256, REMOTE_ALL, "remote"));
        MemoryRegion inbox = steps.make("ibv_reg_mr inbox", () -> p.pd().allocateMemory(64, LOCAL, "inbox"));
        Fixtures.pattern(local.segment(), 64, 5);
        remote.segment().set(ValueLayout.JAVA_LONG, 128, 100);
        remote.segment().set(ValueLayout.JAVA_LONG, 136, 9);
        Fixtures.pattern(remote.segment().asSlice(192), 64, 11);
        try (ReceiveRequest recv = p.b().newReceiveRequest(1).wrId(50).single(inbox, 0, 64);
                WorkCompletions wc = p.cq().newWorkCompletions(1)) {
            steps.ok("ibv_post_recv", () -> p.b().postReceive(recv));
            WorkRequestBuilder wr = p.a().newWorkRequestBuilder(1);
            steps.ok("ibv_wr_start .. ibv_wr_complete of five requests", () -> {
                wr.start().flags(SendFlag.SIGNALED);
                wr.wrId(1).sendWithImm(0x12345678).sge(local, 0, 64);
                wr.wrId(2).rdmaWrite(remote.address(), remote.rkey()).sge(local, 0, 64);
                wr.wrId(3).rdmaRead(remote.address() + 192, remote.rkey()).sge(local, 64, 64);
                wr.wrId(4).atomicFetchAdd(remote.address() + 128, remote.rkey(), 5).sge(local, 128, 8);
                wr.wrId(5).atomicCompareSwap(remote.address() + 136, remote.rkey(), 9, 77).sge(local, 136, 8);
                assertThat(wr.built()).isEqualTo(5);
                wr.complete();
            });
            boolean[] seen = new boolean[6];
            for (int i = 0; i < 6; i++) {
                Fixtures.pollFor(p.cq(), wc, 1, WAIT);
                assertThat(wc.status(0)).as("completion of wr %d", wc.wrId(0)).isEqualTo(WcStatus.SUCCESS);
                if (wc.wrId(0) == 50) {
                    assertThat(wc.opcode(0)).isEqualTo(WcOpcode.RECV);
                    assertThat(wc.wcFlags(0) & WcFlag.WITH_IMM).isNotZero();
                    assertThat(wc.immediateData(0)).isEqualTo(0x12345678);
                    seen[0] = true;
                } else {
                    seen[(int) wc.wrId(0)] = true;
                }
            }
            assertThat(seen).containsOnly(true);
            assertThat(inbox.segment().asSlice(0, 64).mismatch(local.segment().asSlice(0, 64))).isEqualTo(-1);
            assertThat(remote.segment().asSlice(0, 64).mismatch(local.segment().asSlice(0, 64))).as("the write")
                    .isEqualTo(-1);
            assertThat(local.segment().asSlice(64, 64).mismatch(remote.segment().asSlice(192, 64))).as("the read")
                    .isEqualTo(-1);
            assertThat(local.segment().get(ValueLayout.JAVA_LONG, 128)).isEqualTo(100);
            assertThat(remote.segment().get(ValueLayout.JAVA_LONG, 128)).isEqualTo(105);
            assertThat(local.segment().get(ValueLayout.JAVA_LONG, 136)).isEqualTo(9);
            assertThat(remote.segment().get(ValueLayout.JAVA_LONG, 136)).isEqualTo(77);
        }
    }

    static void udWithRdmaWriteRefused(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        CompletionQueue cq = steps.make("ibv_create_cq", () -> ctx.createCompletionQueue(CompletionQueueSpec.of(8), "cq"));
        ProtectionDomain pd = steps.make("ibv_alloc_pd", () -> ctx.allocateProtectionDomain("pd"));
        steps.fails("ibv_create_qp_ex UD with IBV_QP_EX_WITH_RDMA_WRITE", Errno.EOPNOTSUPP,
                () -> pd.createQueuePair(QueuePairSpec.ud(cq, cq, CAPS).withSendOps(SendOpcode.SEND,
                        SendOpcode.RDMA_WRITE), "ud"));
        steps.ok("ibv_create_qp_ex UD with IBV_QP_EX_WITH_SEND", () -> pd.createQueuePair(QueuePairSpec.ud(cq, cq, CAPS)
                .withSendOps(SendOpcode.SEND, SendOpcode.SEND_WITH_IMM), "ud"));
    }
}
