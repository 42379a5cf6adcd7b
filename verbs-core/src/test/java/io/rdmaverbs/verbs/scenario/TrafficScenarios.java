package io.rdmaverbs.verbs.scenario;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.rdmaverbs.verbs.AddressHandle;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcFlag;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;

import static io.rdmaverbs.verbs.scenario.Fixtures.CAPS;
import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static io.rdmaverbs.verbs.scenario.Fixtures.PORT;
import static io.rdmaverbs.verbs.scenario.Fixtures.REMOTE;
import static org.assertj.core.api.Assertions.assertThat;

/** Data really moving: RC send/recv with completion events, RDMA write, UD through an address handle. */
final class TrafficScenarios {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int BYTES = 256;

    private TrafficScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("RC loopback send/recv completes through a completion channel",
                        TrafficScenarios::rcSendReceiveThroughChannel),
                new Scenario("RC RDMA write lands in the remote registered segment",
                        TrafficScenarios::rcRdmaWrite),
                new Scenario("UD send/recv through an address handle delivers the GRH and the payload",
                        TrafficScenarios::udSendReceive),
                new Scenario("unacknowledged CQ events make a strict destroy refuse; cascade acknowledges them",
                        TrafficScenarios::unacknowledgedEventsBlockStrictClose));
    }

    /** Two connected RC QPs on one context, sharing a channel-backed CQ. */
    record RcPair(DeviceContext ctx, CompletionChannel channel, CompletionQueue cq, ProtectionDomain pd,
            QueuePair a, QueuePair b) {
    }

    static RcPair rcPair(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        CompletionChannel channel = steps.make("ibv_create_comp_channel", () -> ctx.createCompletionChannel("channel"));
        CompletionQueue cq = steps.make("ibv_create_cq",
                () -> ctx.createCompletionQueue(CompletionQueueSpec.of(64).withChannel(channel), "cq"));
        ProtectionDomain pd = steps.make("ibv_alloc_pd", () -> ctx.allocateProtectionDomain("pd"));
        QueuePair a = steps.make("ibv_create_qp_ex RC a", () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS), "a"));
        QueuePair b = steps.make("ibv_create_qp_ex RC b", () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS), "b"));
        AddressVector self = Fixtures.selfAddress(ctx);
        steps.ok("ibv_modify_qp RESET->INIT->RTR->RTS both", () -> Fixtures.connect(a, b, self, Fixtures.pathMtu(ctx)));
        assertThat(a.query().state()).isEqualTo(QpState.RTS);
        return new RcPair(ctx, channel, cq, pd, a, b);
    }

    /** Waits for one event on the channel, acknowledges it, and returns its CQ. */
    static CompletionQueue awaitAndAck(CompletionChannel channel) {
        Optional<CompletionQueue> cq = channel.awaitEvent(WAIT);
        assertThat(cq).as("a completion event on %s within %s", channel, WAIT).isPresent();
        cq.get().acknowledgeEvents(1);
        return cq.get();
    }

    static void rcSendReceiveThroughChannel(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        RcPair p = rcPair(run);
        MemoryRegion src = steps.make("ibv_reg_mr src", () -> p.pd().allocateMemory(BYTES, LOCAL, "src"));
        MemoryRegion dst = steps.make("ibv_reg_mr dst", () -> p.pd().allocateMemory(BYTES, LOCAL, "dst"));
        Fixtures.pattern(src.segment(), BYTES, 3);
        try (ReceiveRequest recv = p.b().newReceiveRequest(1).wrId(200).single(dst, 0, BYTES);
                SendRequest send = p.a().newSendRequest(1).wrId(100).opcode(SendOpcode.SEND_WITH_IMM)
                        .immediateData(0x01020304).single(src, 0, BYTES);
                WorkCompletions wc = p.cq().newWorkCompletions(1)) {
            steps.ok("ibv_post_recv", () -> p.b().postReceive(recv));
            steps.ok("ibv_req_notify_cq", () -> p.cq().requestNotification(false));
            steps.ok("ibv_post_send SEND_WITH_IMM", () -> p.a().postSend(send));

            boolean sawSend = false;
            boolean sawRecv = false;
            while (!(sawSend && sawRecv)) {
                CompletionQueue evCq = awaitAndAck(p.channel());
                assertThat(evCq).isSameAs(p.cq());
                p.cq().requestNotification(false);
                int n;
                while ((n = p.cq().poll(wc)) > 0) {
                    assertThat(n).isEqualTo(1);
                    assertThat(wc.status(0)).as("completion status").isEqualTo(WcStatus.SUCCESS);
                    if (wc.opcode(0) == WcOpcode.SEND) {
                        assertThat(wc.wrId(0)).isEqualTo(100);
                        assertThat(wc.qpNum(0)).isEqualTo(p.a().qpNum());
                        sawSend = true;
                    } else {
                        assertThat(wc.opcode(0)).isEqualTo(WcOpcode.RECV);
                        assertThat(wc.wrId(0)).isEqualTo(200);
                        assertThat(wc.byteLength(0)).isEqualTo(BYTES);
                        assertThat(wc.qpNum(0)).isEqualTo(p.b().qpNum());
                        assertThat(wc.wcFlags(0) & WcFlag.WITH_IMM).isNotZero();
                        assertThat(wc.immediateData(0)).isEqualTo(0x01020304);
                        sawRecv = true;
                    }
                }
            }
        }
        assertThat(dst.segment().asSlice(0, BYTES).mismatch(src.segment().asSlice(0, BYTES))).isEqualTo(-1L);
        assertThat(p.cq().unacknowledgedEvents()).isZero();
        steps.ok("strict close of everything", () -> {
            var report = run.verbs().close(ClosePolicy.STRICT);
            assertThat(report.left()).isEmpty();
        });
    }

    static void rcRdmaWrite(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        RcPair p = rcPair(run);
        MemoryRegion local = p.pd().allocateMemory(BYTES, LOCAL, "local");
        MemoryRegion target = steps.make("ibv_reg_mr with REMOTE_WRITE",
                () -> p.pd().allocateMemory(BYTES, REMOTE, "target"));
        Fixtures.pattern(local.segment(), BYTES, 11);
        try (SendRequest write = p.a().newSendRequest(1).wrId(7).opcode(SendOpcode.RDMA_WRITE)
                .single(local, 0, BYTES).remote(target.address(), target.rkey());
                WorkCompletions wc = p.cq().newWorkCompletions(4)) {
            steps.ok("ibv_post_send RDMA_WRITE", () -> p.a().postSend(write));
            Fixtures.pollFor(p.cq(), wc, 1, WAIT);
            assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode(0)).isEqualTo(WcOpcode.RDMA_WRITE);
            assertThat(wc.wrId(0)).isEqualTo(7);
        }
        MemorySegment got = target.segment();
        assertThat(got.mismatch(local.segment())).isEqualTo(-1L);
        assertThat(got.get(ValueLayout.JAVA_BYTE, 5)).isEqualTo((byte) (11 + 5 * 7));
    }

    static void udSendReceive(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16), "cq");
        QueuePair sender = steps.make("ibv_create_qp_ex UD sender",
                () -> pd.createQueuePair(QueuePairSpec.ud(cq, cq, CAPS), "sender"));
        QueuePair receiver = steps.make("ibv_create_qp_ex UD receiver",
                () -> pd.createQueuePair(QueuePairSpec.ud(cq, cq, CAPS), "receiver"));
        for (QueuePair qp : List.of(sender, receiver)) {
            steps.ok("ibv_modify_qp UD to RTS", () -> {
                qp.toInit(PORT, java.util.EnumSet.noneOf(AccessFlag.class));
                qp.toReadyToReceive(null, 0, 0, Fixtures.pathMtu(ctx));
                qp.toReadyToSend(0);
            });
        }
        AddressHandle ah = steps.make("ibv_create_ah", () -> pd.createAddressHandle(Fixtures.selfAddress(ctx), "ah"));
        int grh = 40;
        int payload = 64;
        MemoryRegion src = pd.allocateMemory(payload, LOCAL, "src");
        MemoryRegion dst = pd.allocateMemory(grh + payload, LOCAL, "dst");
        Fixtures.pattern(src.segment(), payload, 21);
        try (ReceiveRequest recv = receiver.newReceiveRequest(1).wrId(2).single(dst, 0, grh + payload);
                SendRequest send = sender.newSendRequest(1).wrId(1).single(src, 0, payload)
                        .datagram(ah, receiver.qpNum(), QueuePair.DEFAULT_QKEY);
                WorkCompletions wc = cq.newWorkCompletions(1)) {
            steps.ok("ibv_post_recv", () -> receiver.postReceive(recv));
            steps.ok("ibv_post_send UD", () -> sender.postSend(send));
            boolean sawRecv = false;
            for (int i = 0; i < 2; i++) {
                Fixtures.pollFor(cq, wc, 1, WAIT);
                assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
                if (wc.opcode(0) == WcOpcode.RECV) {
                    sawRecv = true;
                    assertThat(wc.byteLength(0)).isEqualTo(grh + payload);
                    assertThat(wc.sourceQp(0)).isEqualTo(sender.qpNum());
                    // RoCE addresses are GIDs: every UD packet carries a GRH. On InfiniBand by LID, none.
                    assertThat((wc.wcFlags(0) & WcFlag.GRH) != 0).isEqualTo(ah.address().isGlobal());
                }
            }
            assertThat(sawRecv).isTrue();
        }
        assertThat(dst.segment().asSlice(grh, payload).mismatch(src.segment())).isEqualTo(-1L);
        for (var r : List.of(sender, receiver, src, dst)) {
            steps.ok("release " + r.kind().releaseVerb(), r::close);
        }
        steps.fails("ibv_dealloc_pd with the AH alive", io.rdmaverbs.verbs.error.Errno.EBUSY,
                () -> pd.close(ClosePolicy.ATTEMPT));
        steps.ok("ibv_destroy_ah", ah::close);
        steps.ok("ibv_dealloc_pd", pd::close);
    }

    static void unacknowledgedEventsBlockStrictClose(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        RcPair p = rcPair(run);
        MemoryRegion src = p.pd().allocateMemory(BYTES, LOCAL, "src");
        MemoryRegion dst = p.pd().allocateMemory(BYTES, LOCAL, "dst");
        try (ReceiveRequest recv = p.b().newReceiveRequest(1).single(dst, 0, BYTES);
                SendRequest send = p.a().newSendRequest(1).single(src, 0, BYTES)) {
            p.b().postReceive(recv);
            p.cq().requestNotification(false);
            p.a().postSend(send);
            Optional<CompletionQueue> ev = p.channel().awaitEvent(WAIT);
            assertThat(ev).contains(p.cq());
        }
        assertThat(p.cq().unacknowledgedEvents()).isEqualTo(1);
        StuckReference stuck = p.cq().stuckReferences().stream()
                .filter(s -> s.cause() == StuckReference.Cause.UNACKNOWLEDGED_CQ_EVENTS).findFirst().orElseThrow();
        assertThat(stuck.consequence()).isEqualTo(StuckReference.Consequence.BLOCKS_FOREVER);
        assertThat(stuck.verb()).isEqualTo("ibv_destroy_cq");
        p.a().close();
        p.b().close();
        steps.refused("strict ibv_destroy_cq with an unacknowledged event", p.cq()::close);
        // Never handed to the kernel, even when asked to attempt: it would hang.
        steps.refused("attempted ibv_destroy_cq with an unacknowledged event", () -> p.cq().close(ClosePolicy.ATTEMPT));
        assertThat(p.cq().isOpen()).isTrue();
        steps.ok("cascade ibv_destroy_cq acknowledges first", () -> p.cq().close(ClosePolicy.CASCADE));
        assertThat(p.cq().isClosed()).isTrue();
    }
}
