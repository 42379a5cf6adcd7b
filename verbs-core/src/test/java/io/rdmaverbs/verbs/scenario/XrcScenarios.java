package io.rdmaverbs.verbs.scenario;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.SharedReceiveQueue;
import io.rdmaverbs.verbs.SharedReceiveQueueSpec;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.XrcDomain;
import io.rdmaverbs.verbs.XrcDomainSpec;
import io.rdmaverbs.verbs.XrcReceiveQpRegistration;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;

import static io.rdmaverbs.verbs.scenario.Fixtures.CAPS;
import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static io.rdmaverbs.verbs.scenario.Fixtures.PORT;
import static io.rdmaverbs.verbs.scenario.Fixtures.REMOTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * XRC domains ({@code ibv_open_xrcd(3)}) and receive-QP registrations ({@code ibv_open_qp(3)}, successor of {@code ibv_reg_xrc_rcv_qp(3)}). On a device without XRC (soft-RoCE)
 * each scenario reduces to its first step: {@code ibv_open_xrcd} answers EOPNOTSUPP, turned into a
 * clear "no XRC" error.
 */
final class XrcScenarios {

    private XrcScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("XRC domains are shared by inode with O_CREAT and O_EXCL semantics",
                        XrcScenarios::sharedByInode),
                new Scenario("an XRC receive QP lives until its last registration; close_xrcd fails while registered",
                        XrcScenarios::receiveQpLivesUntilLastRegistration),
                new Scenario("ibv_close_xrcd with an XRC SRQ in the domain fails with EBUSY, as predicted",
                        XrcScenarios::closeXrcdWithSrq),
                new Scenario("XRC traffic: an XRC send QP delivers into a remote XRC SRQ by number",
                        XrcScenarios::xrcTraffic));
    }

    /**
     * Opens a private XRC domain, or (on a device without XRC) checks the clear EOPNOTSUPP and returns
     * {@code null}: the scenario ends there.
     */
    static XrcDomain xrcdOrUnsupported(ScenarioRun run, DeviceContext ctx, XrcDomainSpec spec, String label) {
        if (ctx.supportsXrc()) {
            try {
                return run.steps().make(label, () -> ctx.openXrcDomain(spec, "xrcd"));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        VerbsException e = run.steps().fails(label + " on a device without XRC", Errno.EOPNOTSUPP,
                () -> ctx.openXrcDomain(spec, "xrcd"));
        assertThat(e.verb()).isEqualTo("ibv_open_xrcd");
        assertThat(e.getMessage()).contains(ctx.device().name(), "no XRC support");
        assertThat(run.verbs().resources()).containsExactly(ctx);
        return null;
    }

    static Path tempFile() throws Exception {
        Path f = Files.createTempFile("rdma-verbs-xrcd-", ".key");
        f.toFile().deleteOnExit();
        return f;
    }

    static void sharedByInode(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext a = run.open();
        Path file = tempFile();
        XrcDomain first = xrcdOrUnsupported(run, a, XrcDomainSpec.exclusive(file), "ibv_open_xrcd O_CREAT|O_EXCL");
        if (first == null) {
            return;
        }
        Verbs other = run.otherGraph();
        try {
            DeviceContext b = other.openDevice(run.device(), "other-process");
            steps.fails("ibv_open_xrcd O_CREAT|O_EXCL of an existing domain", Errno.EINVAL,
                    () -> b.openXrcDomain(XrcDomainSpec.exclusive(file)));
            XrcDomain shared = steps.make("ibv_open_xrcd of the existing domain",
                    () -> b.openXrcDomain(XrcDomainSpec.existing(file), "shared"));
            Path unknown = tempFile();
            steps.fails("ibv_open_xrcd without O_CREAT, no domain for the inode", Errno.EAGAIN,
                    () -> b.openXrcDomain(XrcDomainSpec.existing(unknown)));
            steps.fails("ibv_open_xrcd on a descriptor that is not open", Errno.EBADF,
                    () -> b.openXrcDomain(XrcDomainSpec.onDescriptor(987_654)));
            XrcDomain priv = steps.make("ibv_open_xrcd fd -1 O_CREAT (private)",
                    () -> b.openXrcDomain(XrcDomainSpec.privateDomain(), "private"));
            steps.ok("ibv_close_xrcd shared", shared::close);
            steps.ok("ibv_close_xrcd private", priv::close);
            steps.ok("ibv_close_device other", b::close);
        } finally {
            other.close();
        }
        steps.ok("ibv_close_xrcd first", first::close);
    }

    static void receiveQpLivesUntilLastRegistration(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext a = run.open();
        Path file = tempFile();
        XrcDomain xrcdA = xrcdOrUnsupported(run, a, XrcDomainSpec.shared(file), "ibv_open_xrcd");
        if (xrcdA == null) {
            return;
        }
        QueuePair target = steps.make("ibv_create_qp_ex XRC_RECV", () -> xrcdA.createReceiveQueuePair("target"));
        int qpNum = target.qpNum();
        StuckReference s = ReleaseRuleScenarios.predicted(xrcdA, target);
        assertThat(s.cause()).isEqualTo(StuckReference.Cause.XRC_RECEIVE_QP_REGISTRATION);
        steps.fails("ibv_close_xrcd while registered (creator)", Errno.EBUSY, () -> xrcdA.close(ClosePolicy.ATTEMPT));

        Verbs other = run.otherGraph();
        try {
            DeviceContext b = other.openDevice(run.device(), "other-process");
            XrcDomain xrcdB = b.openXrcDomain(XrcDomainSpec.existing(file), "xrcd-b");
            XrcReceiveQpRegistration reg = steps.make("ibv_open_qp (register)",
                    () -> xrcdB.openReceiveQueuePair(qpNum, "reg"));
            assertThat(reg.qpNum()).isEqualTo(qpNum);
            ReleaseRuleScenarios.predicted(xrcdB, reg);
            steps.fails("ibv_close_xrcd while registered (opener)", Errno.EBUSY, () -> xrcdB.close(ClosePolicy.ATTEMPT));

            steps.ok("ibv_destroy_qp by the creator (unregister)", target::close);
            // Still alive: registered by the other process; a new registration works.
            XrcReceiveQpRegistration again = steps.make("ibv_open_qp after the creator let go",
                    () -> xrcdA.openReceiveQueuePair(qpNum, "again"));
            steps.ok("unregister again", again::close);
            steps.ok("unregister the last registration", reg::close);
            steps.fails("ibv_open_qp once every registration is gone", Errno.EINVAL,
                    () -> xrcdA.openReceiveQueuePair(qpNum));
            steps.ok("ibv_close_xrcd (opener)", xrcdB::close);
            b.close();
        } finally {
            other.close();
        }
        steps.ok("ibv_close_xrcd (creator)", xrcdA::close);
    }

    static void closeXrcdWithSrq(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        XrcDomain xrcd = xrcdOrUnsupported(run, ctx, XrcDomainSpec.privateDomain(), "ibv_open_xrcd");
        if (xrcd == null) {
            return;
        }
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16));
        SharedReceiveQueue srq = steps.make("ibv_create_srq_ex XRC",
                () -> pd.createSharedReceiveQueue(SharedReceiveQueueSpec.xrc(xrcd, cq, 16), "xsrq"));
        assertThat(srq.srqNum()).isPositive();
        ReleaseRuleScenarios.predicted(xrcd, srq);
        ReleaseRuleScenarios.predicted(cq, srq);
        steps.fails("ibv_close_xrcd with the SRQ alive", Errno.EBUSY, () -> xrcd.close(ClosePolicy.ATTEMPT));
        steps.fails("ibv_destroy_cq with the XRC SRQ on it", Errno.EBUSY, () -> cq.close(ClosePolicy.ATTEMPT));
        steps.ok("ibv_destroy_srq", srq::close);
        steps.ok("ibv_close_xrcd again", xrcd::close);
    }

    static void xrcTraffic(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext recvCtx = run.open();
        Path file = tempFile();
        XrcDomain xrcd = xrcdOrUnsupported(run, recvCtx, XrcDomainSpec.shared(file), "ibv_open_xrcd");
        if (xrcd == null) {
            return;
        }
        ProtectionDomain recvPd = recvCtx.allocateProtectionDomain("recv-pd");
        CompletionQueue recvCq = recvCtx.createCompletionQueue(CompletionQueueSpec.of(16), "recv-cq");
        SharedReceiveQueue srq = recvPd.createSharedReceiveQueue(SharedReceiveQueueSpec.xrc(xrcd, recvCq, 16), "xsrq");
        QueuePair target = xrcd.createReceiveQueuePair("target");
        MemoryRegion dst = recvPd.allocateMemory(128, LOCAL, "dst");

        Verbs senderGraph = run.otherGraph();
        try {
            DeviceContext sendCtx = senderGraph.openDevice(run.device(), "sender");
            ProtectionDomain sendPd = sendCtx.allocateProtectionDomain("send-pd");
            CompletionQueue sendCq = sendCtx.createCompletionQueue(CompletionQueueSpec.of(16), "send-cq");
            QueuePair initiator = steps.make("ibv_create_qp_ex XRC_SEND",
                    () -> sendPd.createQueuePair(QueuePairSpec.xrcSend(sendCq, CAPS), "initiator"));
            MemoryRegion src = sendPd.allocateMemory(128, LOCAL, "src");
            Fixtures.pattern(src.segment(), 128, 42);

            AddressVector path = Fixtures.selfAddress(recvCtx);
            Mtu mtu = Fixtures.pathMtu(recvCtx);
            steps.ok("connect XRC_SEND to XRC_RECV", () -> {
                target.toInit(PORT, REMOTE);
                initiator.toInit(PORT, REMOTE);
                target.toReadyToReceive(path, initiator.qpNum(), 0, mtu);
                initiator.toReadyToReceive(path, target.qpNum(), 0, mtu);
                initiator.toReadyToSend(0);
            });
            try (ReceiveRequest recv = srq.newReceiveRequest(1).wrId(9).single(dst, 0, 128);
                    SendRequest send = initiator.newSendRequest(1).wrId(8).single(src, 0, 128)
                            .xrcRemoteSrqNum(srq.srqNum());
                    WorkCompletions wcRecv = recvCq.newWorkCompletions(1);
                    WorkCompletions wcSend = sendCq.newWorkCompletions(1)) {
                steps.ok("ibv_post_srq_recv", () -> srq.postReceive(recv));
                steps.ok("ibv_post_send XRC", () -> initiator.postSend(send));
                Fixtures.pollFor(sendCq, wcSend, 1, Duration.ofSeconds(20));
                assertThat(wcSend.status(0)).isEqualTo(WcStatus.SUCCESS);
                Fixtures.pollFor(recvCq, wcRecv, 1, Duration.ofSeconds(20));
                assertThat(wcRecv.status(0)).isEqualTo(WcStatus.SUCCESS);
                assertThat(wcRecv.opcode(0)).isEqualTo(WcOpcode.RECV);
                assertThat(wcRecv.wrId(0)).isEqualTo(9);
                assertThat(wcRecv.byteLength(0)).isEqualTo(128);
            }
            assertThat(dst.segment().mismatch(src.segment())).isEqualTo(-1L);
        } finally {
            senderGraph.close();
        }
    }
}
