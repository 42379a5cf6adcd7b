package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;

import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The kernel's ib_modify_qp_is_ok table, and what a QP accepts in each state. */
class QpStateMachineTest {

    private static final EnumSet<AccessFlag> NO_ACCESS = EnumSet.noneOf(AccessFlag.class);

    private final VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"));
    private final SimulatedProvider provider = rig.provider;
    private final DeviceVerbs deviceVerbs = provider.deviceVerbs();
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final SharedReceiveQueueVerbs srqVerbs = provider.sharedReceiveQueueVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final ContextHandle ctx = rig.open("rxe0");
    private final PdHandle pd = domainVerbs.allocPd(ctx);
    private final CqHandle cq = cqVerbs.createCq(ctx, 64, null, 0);
    private final QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
    private final MemorySegment buf = rig.buffer(256);
    private final MrHandle mr = rig.register(pd, buf);

    @AfterEach
    void close() {
        rig.close();
    }

    private AddressVector self() {
        return rig.addressOf(ctx);
    }

    @Test
    void rcGoesResetInitRtrRts() {
        qpVerbs.modifyQp(qp, QpModification.init(1, 0, NO_ACCESS));
        assertThat(qpVerbs.queryQp(qp).state()).isEqualTo(QpState.INIT);
        qpVerbs.modifyQp(qp, QpModification.readyToReceive(QpType.RC, self(), qp.qpNum(), 0, Mtu.MTU_1024));
        assertThat(qpVerbs.queryQp(qp).state()).isEqualTo(QpState.RTR);
        qpVerbs.modifyQp(qp, QpModification.readyToSend(QpType.RC, 0));
        var attrs = qpVerbs.queryQp(qp);
        assertThat(attrs.state()).isEqualTo(QpState.RTS);
        assertThat(attrs.destQpNum()).isEqualTo(qp.qpNum());
        assertThat(attrs.port()).isEqualTo(1);
        assertThat(attrs.pathMtu()).isEqualTo(Mtu.MTU_1024);
    }

    @Test
    void skippingAStateFailsWithEinval() {
        assertVerbFails(() -> qpVerbs.modifyQp(qp, QpModification.readyToReceive(QpType.RC, self(), 1, 0,
                Mtu.MTU_1024)),
                "ibv_modify_qp", Errno.EINVAL);
        assertVerbFails(() -> qpVerbs.modifyQp(qp, QpModification.readyToSend(QpType.RC, 0)), "ibv_modify_qp",
                Errno.EINVAL);
        assertThat(qpVerbs.queryQp(qp).state()).isEqualTo(QpState.RESET);
    }

    @Test
    void resetToErrorIsNotATransitionOnKernel61() {
        assertVerbFails(() -> qpVerbs.modifyQp(qp, QpModification.to(QpState.ERR)), "ibv_modify_qp", Errno.EINVAL);
        qpVerbs.modifyQp(qp, QpModification.init(1, 0, NO_ACCESS));
        qpVerbs.modifyQp(qp, QpModification.to(QpState.ERR));
        qpVerbs.modifyQp(qp, QpModification.to(QpState.ERR));
        qpVerbs.modifyQp(qp, QpModification.to(QpState.RESET));
        assertThat(qpVerbs.queryQp(qp).state()).isEqualTo(QpState.RESET);
    }

    @Test
    void aMissingRequiredAttributeFailsWithEinval() {
        assertVerbFails(() -> qpVerbs.modifyQp(qp, QpModification.to(QpState.INIT).port(1).pkeyIndex(0)),
                "ibv_modify_qp", Errno.EINVAL);
        qpVerbs.modifyQp(qp, QpModification.init(1, 0, NO_ACCESS));
        QpModification noRnrTimer = QpModification.to(QpState.RTR).addressVector(self()).destQpNum(1).rqPsn(0)
                .pathMtu(Mtu.MTU_1024).maxDestRdAtomic(1);
        assertVerbFails(() -> qpVerbs.modifyQp(qp, noRnrTimer), "ibv_modify_qp", Errno.EINVAL);
    }

    @Test
    void anAttributeTheTransitionDoesNotAllowFailsWithEinval() {
        assertVerbFails(() -> qpVerbs.modifyQp(qp, QpModification.init(1, 0, NO_ACCESS).qkey(5)), "ibv_modify_qp",
                Errno.EINVAL);
        qpVerbs.modifyQp(qp, QpModification.init(1, 0, NO_ACCESS));
        qpVerbs.modifyQp(qp, QpModification.readyToReceive(QpType.RC, self(), qp.qpNum(), 0, Mtu.MTU_1024));
        assertVerbFails(() -> qpVerbs.modifyQp(qp, QpModification.readyToSend(QpType.RC, 0).destQpNum(3)),
                "ibv_modify_qp",
                Errno.EINVAL);
    }

    @Test
    void udNeedsAQkeyAndNothingForRtr() {
        QpHandle ud = rig.qp(ctx, pd, cq, QpType.UD);
        assertVerbFails(() -> qpVerbs.modifyQp(ud, QpModification.init(1, 0, NO_ACCESS)), "ibv_modify_qp",
                Errno.EINVAL);
        qpVerbs.modifyQp(ud, QpModification.initDatagram(1, 0, 0x1234));
        qpVerbs.modifyQp(ud, QpModification.to(QpState.RTR));
        qpVerbs.modifyQp(ud, QpModification.readyToSend(QpType.UD, 0));
        assertThat(qpVerbs.queryQp(ud).qkey()).isEqualTo(0x1234);
    }

    @Test
    void xrcSendRtrRefusesTheResponderAttributesAnRcNeeds() {
        try (VerbsRig hca = new VerbsRig(DeviceProfile.mlx5("mlx5_0"))) {
            ContextHandle c = hca.open("mlx5_0");
            PdHandle p = hca.provider.domainVerbs().allocPd(c);
            CqHandle q = hca.provider.completionVerbs().createCq(c, 8, null, 0);
            QpHandle send = hca.provider.queuePairVerbs().createQp(c,
                    new io.rdmaverbs.verbs.provider.QpInitSpec(QpType.XRC_SEND, p,
                    null, q, null, null, io.rdmaverbs.verbs.attr.QpCapabilities.of(4, 0), false));
            hca.provider.queuePairVerbs().modifyQp(send, QpModification.init(1, 0, NO_ACCESS));
            assertVerbFails(() -> hca.provider.queuePairVerbs().modifyQp(send, QpModification.readyToReceive(QpType.RC,
                    hca.addressOf(c), 1, 0,
                    Mtu.MTU_1024)), "ibv_modify_qp", Errno.EINVAL);
            hca.rtr(send, hca.addressOf(c), 1);
            assertThat(hca.provider.queuePairVerbs().queryQp(send).state()).isEqualTo(QpState.RTR);
        }
    }

    @Test
    void theRtrPathMustLeaveFromTheQpsPortAndReachAPopulatedGid() {
        qpVerbs.modifyQp(qp, QpModification.init(1, 0, NO_ACCESS));
        assertVerbFails(() -> qpVerbs.modifyQp(qp, QpModification.readyToReceive(QpType.RC, AddressVector.infiniband(1,
                3),
                qp.qpNum(), 0, Mtu.MTU_1024)), "ibv_modify_qp", Errno.EINVAL);
        assertVerbFails(() -> qpVerbs.modifyQp(qp, QpModification.readyToReceive(QpType.RC, 
                AddressVector.roce(1, deviceVerbs.queryGid(ctx, 1, 0), 7), qp.qpNum(), 0, Mtu.MTU_1024)),
                "ibv_modify_qp", Errno.ENODATA);
        assertThat(qpVerbs.queryQp(qp).state()).isEqualTo(QpState.INIT);
    }

    @Test
    void postSendBeforeRtsFailsWithEinvalAndTheWrNeverRuns() {
        assertVerbFails(() -> rig.post(qp, SendOpcode.SEND, 1, buf, 8, mr, SendFlag.SIGNALED), "ibv_post_send",
                Errno.EINVAL);
        qpVerbs.modifyQp(qp, QpModification.init(1, 0, NO_ACCESS));
        assertVerbFails(() -> rig.post(qp, SendOpcode.SEND, 2, buf, 8, mr, SendFlag.SIGNALED), "ibv_post_send",
                Errno.EINVAL);
        rig.receive(qp, 10, buf, 64, mr);
        qpVerbs.modifyQp(qp, QpModification.readyToReceive(QpType.RC, self(), qp.qpNum(), 0, Mtu.MTU_1024));
        assertVerbFails(() -> rig.post(qp, SendOpcode.SEND, 3, buf, 8, mr, SendFlag.SIGNALED), "ibv_post_send",
                Errno.EINVAL);
        qpVerbs.modifyQp(qp, QpModification.readyToSend(QpType.RC, 0));
        assertThat(rig.poll(cq)).isEmpty();
    }

    @Test
    void postRecvInResetFailsWithEinvalButWorksFromInit() {
        assertVerbFails(() -> rig.receive(qp, 1, buf, 64, mr), "ibv_post_recv", Errno.EINVAL);
        qpVerbs.modifyQp(qp, QpModification.init(1, 0, NO_ACCESS));
        rig.receive(qp, 2, buf, 64, mr);
    }

    @Test
    void movingToErrorFlushesPostedWrsWithWrFlushErr() {
        qpVerbs.modifyQp(qp, QpModification.init(1, 0, NO_ACCESS));
        rig.receive(qp, 21, buf, 64, mr);
        rig.receive(qp, 22, buf, 64, mr);

        qpVerbs.modifyQp(qp, QpModification.to(QpState.ERR));

        assertThat(rig.poll(cq)).extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(21L, WcStatus.WR_FLUSH_ERR),
                        org.assertj.core.groups.Tuple.tuple(22L, WcStatus.WR_FLUSH_ERR));
        rig.post(qp, SendOpcode.SEND, 23, buf, 8, mr, 0);
        assertThat(rig.poll(cq)).as("a send posted in ERR is flushed even unsignaled")
                .extracting(VerbsRig.Wc::wrId, VerbsRig.Wc::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(23L, WcStatus.WR_FLUSH_ERR));
        rig.receive(qp, 24, buf, 64, mr);
        assertThat(rig.poll(cq)).as("rxe 6.1 does not flush receives posted in ERR").isEmpty();
    }

    @Test
    void resetDropsQueuedWrsWithoutCompletions() {
        qpVerbs.modifyQp(qp, QpModification.init(1, 0, NO_ACCESS));
        rig.receive(qp, 31, buf, 64, mr);
        qpVerbs.modifyQp(qp, QpModification.to(QpState.RESET));
        assertThat(rig.poll(cq)).isEmpty();
    }

    @Test
    void aQpReceivingThroughAnSrqRefusesPostRecv() {
        var srq = srqVerbs.createSrq(ctx, new io.rdmaverbs.verbs.provider.SrqInitSpec(
                io.rdmaverbs.verbs.attr.SrqType.BASIC, pd, null, null, 4, 1, 0));
        QpHandle viaSrq = rig.qp(ctx, pd, cq, QpType.RC, srq);
        qpVerbs.modifyQp(viaSrq, QpModification.init(1, 0, NO_ACCESS));
        assertVerbFails(() -> rig.receive(viaSrq, 1, buf, 64, mr), "ibv_post_recv", Errno.EINVAL);
    }

    @Test
    void fullQueuesFailWithEnomem() {
        QpHandle small = qpVerbs.createQp(ctx, new io.rdmaverbs.verbs.provider.QpInitSpec(QpType.RC, pd, null, cq,
                cq, null, io.rdmaverbs.verbs.attr.QpCapabilities.of(1, 1), false));
        qpVerbs.modifyQp(small, QpModification.init(1, 0, NO_ACCESS));
        rig.receive(small, 1, buf, 64, mr);
        assertVerbFails(() -> rig.receive(small, 2, buf, 64, mr), "ibv_post_recv", Errno.ENOMEM);
    }

    @Test
    void tooManySgesOrTooMuchInlineDataFailWithEinval() {
        rig.loopback(qp, ctx);
        try (var wr = qpVerbs.newSendWr(4)) {
            wr.opcode(SendOpcode.SEND);
            for (int i = 0; i < 3; i++) {
                wr.sge(i, buf.address(), 4, mr.lkey());
            }
            wr.sgeCount(3);
            assertVerbFails(() -> qpVerbs.postSend(qp, wr), "ibv_post_send", Errno.EINVAL);
            wr.sgeCount(1);
            wr.sge(0, buf.address(), 33, mr.lkey());
            wr.flags(SendFlag.INLINE);
            assertVerbFails(() -> qpVerbs.postSend(qp, wr), "ibv_post_send", Errno.EINVAL);
        }
    }
}
