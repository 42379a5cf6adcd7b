package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SrqType;
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
    private final PdHandle pd = provider.allocPd(ctx);

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void deallocPdIsBusyWhileAQpUsesItAndSucceedsAfterTheQpIsGone() {
        CqHandle cq = provider.createCq(ctx, 8, null, 0);
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);

        assertVerbFails(() -> provider.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);

        provider.destroyQp(qp);
        provider.deallocPd(pd);
        assertThat(provider.resourceCounts("rxe0").pds()).isZero();
    }

    @Test
    void deallocPdIsBusyWhileAnSrqAnMrOrAnAhUsesIt() {
        SrqHandle srq = provider.createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null, null, 4, 1, 0));
        MrHandle mr = rig.register(pd, rig.buffer(64));
        AhHandle ah = provider.createAh(pd, AddressVector.roce(1, provider.queryGid(ctx, 1, 0), 0));

        assertVerbFails(() -> provider.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        provider.destroySrq(srq);
        assertVerbFails(() -> provider.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        provider.deregMr(mr);
        assertVerbFails(() -> provider.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        provider.destroyAh(ah);
        provider.deallocPd(pd);
    }

    @Test
    void theBusyMessageNamesTheObjectsInTheWay() {
        MrHandle mr = rig.register(pd, rig.buffer(64));
        assertVerbFails(() -> provider.deallocPd(pd), "ibv_dealloc_pd", Errno.EBUSY);
        try {
            provider.deallocPd(pd);
        } catch (io.rdmaverbs.verbs.error.VerbsException e) {
            assertThat(e.reason()).contains(mr.describe());
            assertThat(e.resource()).isEqualTo(pd.describe());
        }
    }

    @Test
    void destroyCompChannelIsBusyWhileACqWasCreatedOnIt() {
        CompChannelHandle channel = provider.createCompChannel(ctx);
        CqHandle cq = provider.createCq(ctx, 8, channel, 0);

        assertVerbFails(() -> provider.destroyCompChannel(channel), "ibv_destroy_comp_channel", Errno.EBUSY);

        provider.destroyCq(cq);
        provider.destroyCompChannel(channel);
        assertThat(provider.resourceCounts("rxe0").compChannels()).isZero();
    }

    @Test
    void destroyCqIsBusyWhileAQpSendsOrReceivesThroughIt() {
        CqHandle send = provider.createCq(ctx, 8, null, 0);
        CqHandle recv = provider.createCq(ctx, 8, null, 1);
        QpHandle qp = provider.createQp(ctx, new QpInitSpec(QpType.RC, pd, null, send, recv, null,
                QpCapabilities.of(4, 4), false));

        assertVerbFails(() -> provider.destroyCq(send), "ibv_destroy_cq", Errno.EBUSY);
        assertVerbFails(() -> provider.destroyCq(recv), "ibv_destroy_cq", Errno.EBUSY);

        provider.destroyQp(qp);
        provider.destroyCq(send);
        provider.destroyCq(recv);
    }

    @Test
    void destroyCqIsBusyWhileAnXrcSrqCompletesToIt() {
        ContextHandle hca = rig.open("mlx5_0");
        PdHandle hcaPd = provider.allocPd(hca);
        CqHandle cq = provider.createCq(hca, 8, null, 0);
        XrcdHandle xrcd = provider.openXrcd(hca, -1, io.rdmaverbs.verbs.attr.OpenFlags.CREATE);
        SrqHandle srq = provider.createSrq(hca, new SrqInitSpec(SrqType.XRC, hcaPd, xrcd, cq, 4, 1, 0));

        assertVerbFails(() -> provider.destroyCq(cq), "ibv_destroy_cq", Errno.EBUSY);

        provider.destroySrq(srq);
        provider.destroyCq(cq);
        provider.closeXrcd(xrcd);
    }

    @Test
    void destroySrqIsBusyWhileAQpReceivesThroughIt() {
        CqHandle cq = provider.createCq(ctx, 8, null, 0);
        SrqHandle srq = provider.createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null, null, 4, 1, 0));
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC, srq);

        assertVerbFails(() -> provider.destroySrq(srq), "ibv_destroy_srq", Errno.EBUSY);

        provider.destroyQp(qp);
        provider.destroySrq(srq);
    }

    @Test
    void destroyQpIsBusyWhileAttachedToAMulticastGroupAndSucceedsAfterDetach() {
        CqHandle cq = provider.createCq(ctx, 8, null, 0);
        QpHandle ud = rig.qp(ctx, pd, cq, QpType.UD);
        Gid group = VerbsRig.multicastGid(7);
        provider.attachMcast(ud, group, 0);

        assertVerbFails(() -> provider.destroyQp(ud), "ibv_destroy_qp", Errno.EBUSY);

        provider.detachMcast(ud, group, 0);
        provider.destroyQp(ud);
        assertThat(provider.resourceCounts("rxe0").qps()).isZero();
    }

    @Test
    void closeXrcdIsBusyWhileAnXrcReceiveQpOrXrcSrqOfThisContextUsesIt() {
        ContextHandle hca = rig.open("mlx5_0");
        PdHandle hcaPd = provider.allocPd(hca);
        CqHandle cq = provider.createCq(hca, 8, null, 0);
        XrcdHandle xrcd = provider.openXrcd(hca, -1, io.rdmaverbs.verbs.attr.OpenFlags.CREATE);
        QpHandle target = provider.createQp(hca, new QpInitSpec(QpType.XRC_RECV, null, xrcd, null, null, null,
                QpCapabilities.of(0, 0), false));
        SrqHandle srq = provider.createSrq(hca, new SrqInitSpec(SrqType.XRC, hcaPd, xrcd, cq, 4, 1, 0));

        assertVerbFails(() -> provider.closeXrcd(xrcd), "ibv_close_xrcd", Errno.EBUSY);
        provider.destroyQp(target);
        assertVerbFails(() -> provider.closeXrcd(xrcd), "ibv_close_xrcd", Errno.EBUSY);
        provider.destroySrq(srq);
        provider.closeXrcd(xrcd);
        assertThat(provider.resourceCounts("mlx5_0").xrcds()).isZero();
    }

    @Test
    void aRefusedDestroyLeavesTheObjectUsable() {
        CqHandle cq = provider.createCq(ctx, 8, null, 0);
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        assertVerbFails(() -> provider.destroyCq(cq), "ibv_destroy_cq", Errno.EBUSY);

        provider.reqNotifyCq(cq, false);
        assertThat(provider.queryQp(qp).qpNum()).isEqualTo(qp.qpNum());
    }
}
