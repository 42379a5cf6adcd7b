package io.rdmaverbs.verbs.scenario;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;

import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import static io.rdmaverbs.verbs.scenario.Fixtures.CAPS;
import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static io.rdmaverbs.verbs.scenario.Fixtures.PORT;
import static io.rdmaverbs.verbs.scenario.Fixtures.REMOTE;
import static io.rdmaverbs.verbs.scenario.Fixtures.pathMtu;
import static io.rdmaverbs.verbs.scenario.Fixtures.selfAddress;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bad arguments: rejected with a clear message before native code, and nothing left allocated. Also
 * the provider's own answers to the same mistakes (asked directly, below the resource graph), which
 * the differential check compares between the kernel and the simulated provider.
 */
final class ArgumentScenarios {

    private ArgumentScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("bad arguments are rejected before native code and nothing is left allocated",
                        ArgumentScenarios::badArgumentsRejectedInJava),
                new Scenario("the provider answers out-of-range requests with the kernel's errno",
                        ArgumentScenarios::providerAnswersWithKernelErrno),
                new Scenario("the provider refuses over-limit SRQs and QP SGEs and MR access without LOCAL_WRITE with "
                        + "EINVAL", ArgumentScenarios::providerRefusesOverLimitCreations),
                new Scenario("a mask the QP state table rejects is EINVAL naming the attributes, before ibv_modify_qp",
                        ArgumentScenarios::maskTheStateTableRejects),
                new Scenario("an unknown device is ENODEV naming the devices present",
                        ArgumentScenarios::unknownDevice));
    }

    static void badArgumentsRejectedInJava(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        CompletionChannel channel = ctx.createCompletionChannel("channel");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16), "cq");
        int maxCqe = ctx.attributes().maxCqe();
        int vectors = ctx.attributes().numCompVectors();
        int before = run.verbs().resources().size();

        assertThat(steps.rejected("CQ with 0 entries", IllegalArgumentException.class,
                () -> ctx.createCompletionQueue(CompletionQueueSpec.of(0))).getMessage()).contains("max_cqe");
        assertThat(steps.rejected("CQ with max_cqe + 1 entries", IllegalArgumentException.class,
                () -> ctx.createCompletionQueue(CompletionQueueSpec.of(maxCqe + 1))).getMessage())
                .contains(String.valueOf(maxCqe));
        assertThat(steps.rejected("CQ on a completion vector that does not exist", IllegalArgumentException.class,
                () -> ctx.createCompletionQueue(CompletionQueueSpec.of(4).withChannel(channel).withCompVector(vectors)))
                .getMessage()).contains("vector");
        assertThat(steps.rejected("query of port 0", IllegalArgumentException.class,
                () -> ctx.queryPort(0)).getMessage()).contains("ports are 1..");
        steps.rejected("query of a port past the last", IllegalArgumentException.class,
                () -> ctx.queryPort(ctx.attributes().physPortCount() + 1));
        assertThat(steps.rejected("registering a heap segment", IllegalArgumentException.class,
                () -> pd.registerMemory(MemorySegment.ofArray(new byte[64]), LOCAL)).getMessage()).contains("heap");
        steps.rejected("remote write without local write", IllegalArgumentException.class,
                () -> pd.allocateMemory(64, EnumSet.of(AccessFlag.REMOTE_WRITE)));
        steps.rejected("a QP asking for more work requests than max_qp_wr", IllegalArgumentException.class,
                () -> pd.createQueuePair(QueuePairSpec.rc(cq, cq,
                        new QpCapabilities(ctx.attributes().maxQpWr() + 1, 1, 1, 1, 0))));
        steps.rejected("a non-multicast GID for multicast", IllegalArgumentException.class, () -> {
            QueuePair ud = pd.createQueuePair(QueuePairSpec.ud(cq, cq, CAPS));
            try {
                ud.attachMulticast(Gid.parse("fe80:0000:0000:0000:0000:0000:0000:0001"), 0);
            } finally {
                ud.close();
            }
        });
        steps.rejected("acknowledging an event that never came", IllegalArgumentException.class,
                () -> cq.acknowledgeEvents(1));
        steps.rejected("a modification to a port that does not exist", IllegalArgumentException.class,
                () -> QpModification.init(0, 0, EnumSet.noneOf(AccessFlag.class)));

        // A CQ of another context (and another graph) is refused, not passed down.
        Verbs other = run.otherGraph();
        try {
            DeviceContext foreign = other.openDevice(run.device(), "foreign");
            CompletionQueue foreignCq = foreign.createCompletionQueue(CompletionQueueSpec.of(4));
            assertThat(steps.rejected("a QP on a CQ of another graph", IllegalArgumentException.class,
                    () -> pd.createQueuePair(QueuePairSpec.rc(foreignCq, foreignCq, CAPS))).getMessage())
                    .contains("another resource graph");
            DeviceContext second = run.verbs().openDevice(run.device(), "second");
            CompletionQueue otherCtxCq = second.createCompletionQueue(CompletionQueueSpec.of(4));
            assertThat(steps.rejected("a QP on a CQ of another context", IllegalArgumentException.class,
                    () -> pd.createQueuePair(QueuePairSpec.rc(otherCtxCq, otherCtxCq, CAPS))).getMessage())
                    .contains("belongs to device context");
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment seg = arena.allocate(64);
                MemoryRegion mr = second.allocateProtectionDomain("pd2").registerMemory(seg, LOCAL, "mr2");
                QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS));
                steps.rejected("posting a region registered on another context", IllegalArgumentException.class,
                        () -> qp.postSend(qp.newSendRequest(1).single(mr, 0, 64)));
                qp.close();
                mr.close();
            }
            Arena shortLived = Arena.ofShared();
            MemoryRegion freed = pd.registerMemory(shortLived.allocate(64), LOCAL, "freed");
            QueuePair sender = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS));
            try (var send = sender.newSendRequest(1).single(freed, 0, 64)) {
                shortLived.close();
                assertThat(steps.rejected("posting from a region whose memory was freed", IllegalStateException.class,
                        () -> sender.postSend(send)).getMessage()).contains("was freed");
            }
            sender.close();
            freed.close();
            CompletionQueue closedCq = ctx.createCompletionQueue(CompletionQueueSpec.of(4));
            closedCq.close();
            steps.rejected("a QP on a closed CQ", ResourceClosedException.class,
                    () -> pd.createQueuePair(QueuePairSpec.rc(closedCq, closedCq, CAPS)));
            second.allocateProtectionDomain("leftover");
            run.verbs().close(List.of(second), io.rdmaverbs.verbs.ClosePolicy.CASCADE);
        } finally {
            other.close();
        }
        assertThat(run.verbs().resources()).as("nothing left allocated by the rejected calls").hasSize(before);
    }

    static void providerAnswersWithKernelErrno(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        VerbsProvider provider = run.provider();
        ContextHandle ctx = provider.deviceVerbs().openDevice(run.device());
        try {
            var attrs = provider.deviceVerbs().queryDevice(ctx);
            steps.fails("ibv_create_cq with max_cqe + 1 entries", Errno.EINVAL,
                    () -> provider.completionVerbs().createCq(ctx, attrs.maxCqe() + 1, null, 0));
            steps.fails("ibv_create_cq on vector num_comp_vectors", Errno.EINVAL,
                    () -> provider.completionVerbs().createCq(ctx, 4, null, attrs.numCompVectors()));
            steps.fails("ibv_query_port of a port past the last", Errno.EINVAL,
                    () -> provider.deviceVerbs().queryPort(ctx, attrs.physPortCount() + 1));
            var pd = provider.domainVerbs().allocPd(ctx);
            try {
                var cq = provider.completionVerbs().createCq(ctx, 8, null, 0);
                try {
                    steps.fails("ibv_create_qp_ex with max_qp_wr + 1 send work requests", Errno.EINVAL,
                            () -> provider.queuePairVerbs().createQp(ctx, new io.rdmaverbs.verbs.provider.QpInitSpec(
                                    io.rdmaverbs.verbs.attr.QpType.RC, pd, null, cq, cq, null,
                                    new QpCapabilities(attrs.maxQpWr() + 1, 1, 1, 1, 0), true)));
                    var qp = provider.queuePairVerbs().createQp(ctx, new io.rdmaverbs.verbs.provider.QpInitSpec(
                            io.rdmaverbs.verbs.attr.QpType.RC, pd, null, cq, cq, null, CAPS, true));
                    try {
                        var port = provider.deviceVerbs().queryPort(ctx, 1);
                        AddressVector self = port.linkLayer() == io.rdmaverbs.verbs.attr.LinkLayer.INFINIBAND
                                ? AddressVector.infiniband(1, port.lid())
                                : AddressVector.roce(1, provider.deviceVerbs().queryGid(ctx, 1, 0), 0);
                        steps.fails("ibv_modify_qp RESET->RTR (skipping INIT)", Errno.EINVAL,
                                () -> provider.queuePairVerbs().modifyQp(qp,
                                QpModification.readyToReceive(io.rdmaverbs.verbs.attr.QpType.RC, self, qp.qpNum(), 0,
                                        io.rdmaverbs.verbs.attr.Mtu.MTU_1024)));
                        steps.fails("ibv_modify_qp RESET->INIT without the access flags", Errno.EINVAL,
                                () -> provider.queuePairVerbs().modifyQp(qp,
                                QpModification.to(io.rdmaverbs.verbs.attr.QpState.INIT)
                                        .port(1).pkeyIndex(0)));
                        steps.fails("ibv_modify_qp RESET->INIT of an RC QP with a Q_Key", Errno.EINVAL,
                                () -> provider.queuePairVerbs().modifyQp(qp, QpModification.init(1, 0, REMOTE).qkey(5)));
                    } finally {
                        releaseRetryingOnce(() -> provider.queuePairVerbs().destroyQp(qp));
                    }
                } finally {
                    releaseRetryingOnce(() -> provider.completionVerbs().destroyCq(cq));
                }
            } finally {
                releaseRetryingOnce(() -> provider.domainVerbs().deallocPd(pd));
            }
        } finally {
            releaseRetryingOnce(() -> provider.deviceVerbs().closeDevice(ctx));
        }
    }

    /**
     * A release below the graph, retried once when refused, as the graph retries for its users: without
     * it one refused destroy makes every enclosing release fail with EBUSY and ibv_close_device leak the
     * rest (the fault sweep found this).
     */
    private static void releaseRetryingOnce(Runnable release) {
        try {
            release.run();
        } catch (VerbsException refused) {
            release.run();
        }
    }

    /**
     * The kernel's own limits, asked below the graph (which refuses some of these in Java first): rxe
     * answers EINVAL from {@code rxe_srq_chk_init} for max_wr above max_srq_wr and max_sge above
     * max_srq_sge, from {@code rxe_qp_chk_cap} for max_send_sge above max_sge, and from
     * {@code ib_check_mr_access} for REMOTE_WRITE without LOCAL_WRITE. Nothing may be left behind: the
     * scenario's leak check ({@code rdma resource show} before and after, on rxe) sees every refused
     * object that was half-created.
     */
    static void providerRefusesOverLimitCreations(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        VerbsProvider provider = run.provider();
        ContextHandle ctx = provider.deviceVerbs().openDevice(run.device());
        try {
            var attrs = provider.deviceVerbs().queryDevice(ctx);
            var pd = provider.domainVerbs().allocPd(ctx);
            try (Arena arena = Arena.ofConfined()) {
                var srqs = provider.sharedReceiveQueueVerbs();
                steps.fails("ibv_create_srq with max_srq_wr + 1 work requests", Errno.EINVAL,
                        () -> srqs.createSrq(ctx, new io.rdmaverbs.verbs.provider.SrqInitSpec(
                                io.rdmaverbs.verbs.attr.SrqType.BASIC, pd, null, null, attrs.maxSrqWr() + 1, 1, 0)));
                steps.fails("ibv_create_srq with max_srq_sge + 1 scatter entries", Errno.EINVAL,
                        () -> srqs.createSrq(ctx, new io.rdmaverbs.verbs.provider.SrqInitSpec(
                                io.rdmaverbs.verbs.attr.SrqType.BASIC, pd, null, null, 4, attrs.maxSrqSge() + 1, 0)));
                steps.fails("ibv_reg_mr with REMOTE_WRITE but not LOCAL_WRITE", Errno.EINVAL,
                        () -> provider.memoryRegionVerbs().regMr(pd, arena.allocate(4096, 4096),
                                AccessFlag.REMOTE_WRITE.bit()));
                var cq = provider.completionVerbs().createCq(ctx, 8, null, 0);
                try {
                    steps.fails("ibv_create_qp_ex with max_sge + 1 send scatter entries", Errno.EINVAL,
                            () -> provider.queuePairVerbs().createQp(ctx, new io.rdmaverbs.verbs.provider.QpInitSpec(
                                    QpType.RC, pd, null, cq, cq, null,
                                    new QpCapabilities(4, 4, attrs.maxSge() + 1, 1, 0), true)));
                } finally {
                    releaseRetryingOnce(() -> provider.completionVerbs().destroyCq(cq));
                }
            } finally {
                releaseRetryingOnce(() -> provider.domainVerbs().deallocPd(pd));
            }
        } finally {
            releaseRetryingOnce(() -> provider.deviceVerbs().closeDevice(ctx));
        }
    }

    /**
     * The graph refuses, with the kernel's EINVAL and without calling ibv_modify_qp, what the kernel's
     * state table rejects (the kernel answers the same modifications with EINVAL in
     * {@link #providerAnswersWithKernelErrno}); where the table allows, the device's own answer comes through.
     */
    static void maskTheStateTableRejects(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        DeviceContext ctx = run.open();
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16), "cq");
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS), "qp");
        QpModification noAccessFlags = QpModification.to(QpState.INIT).port(PORT).pkeyIndex(0);
        QpModification withQkey = QpModification.init(PORT, 0, REMOTE).qkey(5);
        QpModification skippingInit = QpModification.readyToReceive(QpType.RC, selfAddress(ctx), qp.qpNum(), 0,
                pathMtu(ctx));

        VerbsException missing = steps.fails("ibv_modify_qp RESET->INIT without the access flags, through the graph",
                Errno.EINVAL, () -> qp.modify(noAccessFlags));
        assertThat(missing.verb()).isEqualTo("ibv_modify_qp");
        assertThat(missing.getMessage()).contains("'qp'", "RESET->INIT (RC QP) requires [ACCESS_FLAGS]",
                REFUSED_BEFORE_THE_CALL);
        assertThat(steps.fails("ibv_modify_qp RESET->INIT of an RC QP with a Q_Key, through the graph", Errno.EINVAL,
                () -> qp.modify(withQkey)).getMessage()).contains("does not take [QKEY]", REFUSED_BEFORE_THE_CALL);
        assertThat(steps.fails("ibv_modify_qp RESET->RTR, through the graph", Errno.EINVAL,
                () -> qp.modify(skippingInit)).getMessage()).contains("cannot go from RESET to RTR",
                        REFUSED_BEFORE_THE_CALL);
        assertThat(qp.query().state()).as("the refused modifications left the QP where it was").isEqualTo(QpState.RESET);
        // The kernel's own answer to the same three, below the graph: providerAnswersWithKernelErrno.

        // Where the table allows, the device judges the values: RDMA read depth above max_qp_rd_atom.
        qp.toInit(PORT, REMOTE);
        qp.toReadyToReceive(selfAddress(ctx), qp.qpNum(), 0, pathMtu(ctx));
        int tooDeep = ctx.attributes().maxQpRdAtom() + 1;
        assertThat(steps.fails("ibv_modify_qp RTR->RTS with max_rd_atomic above max_qp_rd_atom", Errno.EINVAL,
                () -> qp.modify(QpModification.readyToSend(QpType.RC, 0).maxRdAtomic(tooDeep))).getMessage())
                .doesNotContain(REFUSED_BEFORE_THE_CALL);
        steps.ok("ibv_modify_qp RTR->RTS", () -> qp.toReadyToSend(0));
        qp.close();
        cq.close();
        pd.close();
    }

    private static final String REFUSED_BEFORE_THE_CALL = "refused before calling ibv_modify_qp";

    static void unknownDevice(ScenarioRun run) {
        VerbsException e = run.steps().fails("ibv_open_device of a device that does not exist", Errno.ENODEV,
                () -> run.verbs().openDevice("no-such-device9"));
        assertThat(e.getMessage()).contains("no-such-device9", run.device().name());
        assertThatThrownBy(() -> run.verbs().findDevice("no-such-device9")).isInstanceOf(VerbsException.class);
    }
}
