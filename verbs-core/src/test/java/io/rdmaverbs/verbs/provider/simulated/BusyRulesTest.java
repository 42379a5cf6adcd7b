package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.AddressHandleVerbs;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MemoryRegionVerbs;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each kernel/libibverbs reference count that makes a destroy fail with EBUSY, and its release. */
class BusyRulesTest {

    private final VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"), DeviceProfile.mlx5("mlx5_0"));
    private final SimulatedProvider provider = rig.provider;
    private final DeviceVerbs deviceVerbs = provider.deviceVerbs();
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final SharedReceiveQueueVerbs srqVerbs = provider.sharedReceiveQueueVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();
    private final MemoryRegionVerbs mrVerbs = provider.memoryRegionVerbs();
    private final AddressHandleVerbs ahVerbs = provider.addressHandleVerbs();
    private final ContextHandle ctx = rig.open("rxe0");
    private final PdHandle pd = domainVerbs.allocPd(ctx);

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void deallocPdIsBusyWhileAQpUsesItAndSucceedsAfterTheQpIsGone() {
        CqHandle cq = cqVerbs.createCq(ctx, 8, null, 0);
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);

        assertVerbFails(() -> domainVerbs.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);

        qpVerbs.destroyQp(qp);
        domainVerbs.deallocPd(pd);
        assertThat(provider.resourceCounts("rxe0").pds()).isZero();
    }

    @Test
    void deallocPdIsBusyWhileAnSrqAnMrOrAnAhUsesIt() {
        SrqHandle srq = srqVerbs.createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null, null, 4, 1, 0));
        MrHandle mr = rig.register(pd, rig.buffer(64));
        AhHandle ah = ahVerbs.createAh(pd, AddressVector.roce(1, deviceVerbs.queryGid(ctx, 1, 0), 0));

        assertVerbFails(() -> domainVerbs.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        srqVerbs.destroySrq(srq);
        assertVerbFails(() -> domainVerbs.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        mrVerbs.deregMr(mr);
        assertVerbFails(() -> domainVerbs.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        ahVerbs.destroyAh(ah);
        domainVerbs.deallocPd(pd);
    }

    @Test
    void theBusyMessageNamesTheObjectsInTheWay() {
        MrHandle mr = rig.register(pd, rig.buffer(64));
        assertVerbFails(() -> domainVerbs.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        try {
            domainVerbs.deallocPd(pd);
        } catch (io.rdmaverbs.verbs.error.VerbsException e) {
            assertThat(e.reason()).contains(mr.describe());
            assertThat(e.resource()).isEqualTo(pd.describe());
        }
    }

    @Test
    void destroyCompChannelIsBusyWhileACqWasCreatedOnIt() {
        CompChannelHandle channel = cqVerbs.createCompChannel(ctx);
        CqHandle cq = cqVerbs.createCq(ctx, 8, channel, 0);

        assertVerbFails(() -> cqVerbs.destroyCompChannel(channel), "ibv_destroy_comp_channel", Errno.EBUSY);

        cqVerbs.destroyCq(cq);
        cqVerbs.destroyCompChannel(channel);
        assertThat(provider.resourceCounts("rxe0").compChannels()).isZero();
    }

    @Test
    void destroyCqIsBusyWhileAQpSendsOrReceivesThroughIt() {
        CqHandle send = cqVerbs.createCq(ctx, 8, null, 0);
        CqHandle recv = cqVerbs.createCq(ctx, 8, null, 1);
        QpHandle qp = qpVerbs.createQp(ctx, new QpInitSpec(QpType.RC, pd, null, send, recv, null,
                QpCapabilities.of(4, 4), false));

        assertVerbFails(() -> cqVerbs.destroyCq(send), "ibv_destroy_cq", Errno.EBUSY);
        assertVerbFails(() -> cqVerbs.destroyCq(recv), "ibv_destroy_cq", Errno.EBUSY);

        qpVerbs.destroyQp(qp);
        cqVerbs.destroyCq(send);
        cqVerbs.destroyCq(recv);
    }

    @Test
    void destroyCqIsBusyWhileAnXrcSrqCompletesToIt() {
        ContextHandle hca = rig.open("mlx5_0");
        PdHandle hcaPd = domainVerbs.allocPd(hca);
        CqHandle cq = cqVerbs.createCq(hca, 8, null, 0);
        XrcdHandle xrcd = domainVerbs.openXrcd(hca, -1, io.rdmaverbs.verbs.attr.OpenFlags.CREATE);
        SrqHandle srq = srqVerbs.createSrq(hca, new SrqInitSpec(SrqType.XRC, hcaPd, xrcd, cq, 4, 1, 0));

        assertVerbFails(() -> cqVerbs.destroyCq(cq), "ibv_destroy_cq", Errno.EBUSY);

        srqVerbs.destroySrq(srq);
        cqVerbs.destroyCq(cq);
        domainVerbs.closeXrcd(xrcd);
    }

    @Test
    void destroySrqIsBusyWhileAQpReceivesThroughIt() {
        CqHandle cq = cqVerbs.createCq(ctx, 8, null, 0);
        SrqHandle srq = srqVerbs.createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null, null, 4, 1, 0));
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC, srq);

        assertVerbFails(() -> srqVerbs.destroySrq(srq), "ibv_destroy_srq", Errno.EBUSY);

        qpVerbs.destroyQp(qp);
        srqVerbs.destroySrq(srq);
    }

    @Test
    void destroyQpIsBusyWhileAttachedToAMulticastGroupAndSucceedsAfterDetach() {
        CqHandle cq = cqVerbs.createCq(ctx, 8, null, 0);
        QpHandle ud = rig.qp(ctx, pd, cq, QpType.UD);
        Gid group = VerbsRig.multicastGid(7);
        qpVerbs.attachMcast(ud, group, 0);

        assertVerbFails(() -> qpVerbs.destroyQp(ud), "ibv_destroy_qp", Errno.EBUSY);

        qpVerbs.detachMcast(ud, group, 0);
        qpVerbs.destroyQp(ud);
        assertThat(provider.resourceCounts("rxe0").qps()).isZero();
    }

    @Test
    void closeXrcdIsBusyWhileAnXrcReceiveQpOrXrcSrqOfThisContextUsesIt() {
        ContextHandle hca = rig.open("mlx5_0");
        PdHandle hcaPd = domainVerbs.allocPd(hca);
        CqHandle cq = cqVerbs.createCq(hca, 8, null, 0);
        XrcdHandle xrcd = domainVerbs.openXrcd(hca, -1, io.rdmaverbs.verbs.attr.OpenFlags.CREATE);
        QpHandle target = qpVerbs.createQp(hca, new QpInitSpec(QpType.XRC_RECV, null, xrcd, null, null, null,
                QpCapabilities.of(0, 0), false));
        SrqHandle srq = srqVerbs.createSrq(hca, new SrqInitSpec(SrqType.XRC, hcaPd, xrcd, cq, 4, 1, 0));

        assertVerbFails(() -> domainVerbs.closeXrcd(xrcd), "ibv_close_xrcd", Errno.EBUSY);
        qpVerbs.destroyQp(target);
        assertVerbFails(() -> domainVerbs.closeXrcd(xrcd), "ibv_close_xrcd", Errno.EBUSY);
        srqVerbs.destroySrq(srq);
        domainVerbs.closeXrcd(xrcd);
        assertThat(provider.resourceCounts("mlx5_0").xrcds()).isZero();
    }

    @Test
    void aRefusedDestroyLeavesTheObjectUsable() {
        CqHandle cq = cqVerbs.createCq(ctx, 8, null, 0);
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        assertVerbFails(() -> cqVerbs.destroyCq(cq), "ibv_destroy_cq", Errno.EBUSY);

        cqVerbs.reqNotifyCq(cq, false);
        assertThat(qpVerbs.queryQp(qp).qpNum()).isEqualTo(qp.qpNum());
    }
}
