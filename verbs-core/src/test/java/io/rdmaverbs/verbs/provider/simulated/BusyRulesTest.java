package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each kernel/libibverbs reference count that makes a destroy fail with EBUSY, and its release. */
class BusyRulesTest {

    private final VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"), DeviceProfile.mlx5("mlx5_0"));
    private final SimulatedProvider provider = rig.provider;
    private final ContextHandle ctx = rig.open("rxe0");
    private final PdHandle pd = provider.domainVerbs().allocPd(ctx);

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void deallocPdIsBusyWhileAQpUsesItAndSucceedsAfterTheQpIsGone() {
        CqHandle cq = provider.completionVerbs().createCq(ctx, 8, null, 0);
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);

        assertVerbFails(() -> provider.domainVerbs().deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);

        provider.queuePairVerbs().destroyQp(qp);
        provider.domainVerbs().deallocPd(pd);
        assertThat(provider.resourceCounts("rxe0").pds()).isZero();
    }

    @Test
    void deallocPdIsBusyWhileAnSrqAnMrOrAnAhUsesIt() {
        SrqHandle srq = provider.sharedReceiveQueueVerbs().createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null, null, 4, 1, 0));
        MrHandle mr = rig.register(pd, rig.buffer(64));
        AhHandle ah = provider.addressHandleVerbs().createAh(pd, AddressVector.roce(1, provider.deviceVerbs().queryGid(ctx, 1, 0), 0));

        assertVerbFails(() -> provider.domainVerbs().deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        provider.sharedReceiveQueueVerbs().destroySrq(srq);
        assertVerbFails(() -> provider.domainVerbs().deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        provider.memoryRegionVerbs().deregMr(mr);
        assertVerbFails(() -> provider.domainVerbs().deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        provider.addressHandleVerbs().destroyAh(ah);
        provider.domainVerbs().deallocPd(pd);
    }

    @Test
    void theBusyMessageNamesTheObjectsInTheWay() {
        MrHandle mr = rig.register(pd, rig.buffer(64));
        assertVerbFails(() -> provider.domainVerbs().deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        try {
            provider.domainVerbs().deallocPd(pd);
        } catch (io.rdmaverbs.verbs.error.VerbsException e) {
            assertThat(e.reason()).contains(mr.describe());
            assertThat(e.resource()).isEqualTo(pd.describe());
        }
    }

    @Test
    void destroyCompChannelIsBusyWhileACqWasCreatedOnIt() {
        CompChannelHandle channel = provider.completionVerbs().createCompChannel(ctx);
        CqHandle cq = provider.completionVerbs().createCq(ctx, 8, channel, 0);

        assertVerbFails(() -> provider.completionVerbs().destroyCompChannel(channel), "ibv_destroy_comp_channel", Errno.EBUSY);

        provider.completionVerbs().destroyCq(cq);
        provider.completionVerbs().destroyCompChannel(channel);
        assertThat(provider.resourceCounts("rxe0").compChannels()).isZero();
    }

    @Test
    void destroyCqIsBusyWhileAQpSendsOrReceivesThroughIt() {
        CqHandle send = provider.completionVerbs().createCq(ctx, 8, null, 0);
        CqHandle recv = provider.completionVerbs().createCq(ctx, 8, null, 1);
        QpHandle qp = provider.queuePairVerbs().createQp(ctx, new QpInitSpec(QpType.RC, pd, null, send, recv, null,
                QpCapabilities.of(4, 4), false));

        assertVerbFails(() -> provider.completionVerbs().destroyCq(send), "ibv_destroy_cq", Errno.EBUSY);
        assertVerbFails(() -> provider.completionVerbs().destroyCq(recv), "ibv_destroy_cq", Errno.EBUSY);

        provider.queuePairVerbs().destroyQp(qp);
        provider.completionVerbs().destroyCq(send);
        provider.completionVerbs().destroyCq(recv);
    }

    @Test
    void destroyCqIsBusyWhileAnXrcSrqCompletesToIt() {
        ContextHandle hca = rig.open("mlx5_0");
        PdHandle hcaPd = provider.domainVerbs().allocPd(hca);
        CqHandle cq = provider.completionVerbs().createCq(hca, 8, null, 0);
        XrcdHandle xrcd = provider.domainVerbs().openXrcd(hca, -1, io.rdmaverbs.verbs.attr.OpenFlags.CREATE);
        SrqHandle srq = provider.sharedReceiveQueueVerbs().createSrq(hca, new SrqInitSpec(SrqType.XRC, hcaPd, xrcd, cq, 4, 1, 0));

        assertVerbFails(() -> provider.completionVerbs().destroyCq(cq), "ibv_destroy_cq", Errno.EBUSY);

        provider.sharedReceiveQueueVerbs().destroySrq(srq);
        provider.completionVerbs().destroyCq(cq);
        provider.domainVerbs().closeXrcd(xrcd);
    }

    @Test
    void destroySrqIsBusyWhileAQpReceivesThroughIt() {
        CqHandle cq = provider.completionVerbs().createCq(ctx, 8, null, 0);
        SrqHandle srq = provider.sharedReceiveQueueVerbs().createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null, null, 4, 1, 0));
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC, srq);

        assertVerbFails(() -> provider.sharedReceiveQueueVerbs().destroySrq(srq), "ibv_destroy_srq", Errno.EBUSY);

        provider.queuePairVerbs().destroyQp(qp);
        provider.sharedReceiveQueueVerbs().destroySrq(srq);
    }

    @Test
    void destroyQpIsBusyWhileAttachedToAMulticastGroupAndSucceedsAfterDetach() {
        CqHandle cq = provider.completionVerbs().createCq(ctx, 8, null, 0);
        QpHandle ud = rig.qp(ctx, pd, cq, QpType.UD);
        Gid group = VerbsRig.multicastGid(7);
        provider.queuePairVerbs().attachMcast(ud, group, 0);

        assertVerbFails(() -> provider.queuePairVerbs().destroyQp(ud), "ibv_destroy_qp", Errno.EBUSY);

        provider.queuePairVerbs().detachMcast(ud, group, 0);
        provider.queuePairVerbs().destroyQp(ud);
        assertThat(provider.resourceCounts("rxe0").qps()).isZero();
    }

    @Test
    void closeXrcdIsBusyWhileAnXrcReceiveQpOrXrcSrqOfThisContextUsesIt() {
        ContextHandle hca = rig.open("mlx5_0");
        PdHandle hcaPd = provider.domainVerbs().allocPd(hca);
        CqHandle cq = provider.completionVerbs().createCq(hca, 8, null, 0);
        XrcdHandle xrcd = provider.domainVerbs().openXrcd(hca, -1, io.rdmaverbs.verbs.attr.OpenFlags.CREATE);
        QpHandle target = provider.queuePairVerbs().createQp(hca, new QpInitSpec(QpType.XRC_RECV, null, xrcd, null, null, null,
                QpCapabilities.of(0, 0), false));
        SrqHandle srq = provider.sharedReceiveQueueVerbs().createSrq(hca, new SrqInitSpec(SrqType.XRC, hcaPd, xrcd, cq, 4, 1, 0));

        assertVerbFails(() -> provider.domainVerbs().closeXrcd(xrcd), "ibv_close_xrcd", Errno.EBUSY);
        provider.queuePairVerbs().destroyQp(target);
        assertVerbFails(() -> provider.domainVerbs().closeXrcd(xrcd), "ibv_close_xrcd", Errno.EBUSY);
        provider.sharedReceiveQueueVerbs().destroySrq(srq);
        provider.domainVerbs().closeXrcd(xrcd);
        assertThat(provider.resourceCounts("mlx5_0").xrcds()).isZero();
    }

    @Test
    void aRefusedDestroyLeavesTheObjectUsable() {
        CqHandle cq = provider.completionVerbs().createCq(ctx, 8, null, 0);
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        assertVerbFails(() -> provider.completionVerbs().destroyCq(cq), "ibv_destroy_cq", Errno.EBUSY);

        provider.completionVerbs().reqNotifyCq(cq, false);
        assertThat(provider.queuePairVerbs().queryQp(qp).qpNum()).isEqualTo(qp.qpNum());
    }
}
