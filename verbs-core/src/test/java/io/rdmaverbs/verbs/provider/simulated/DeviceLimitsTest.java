package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.GlobalRoute;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.AddressHandleVerbs;
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
import io.rdmaverbs.verbs.provider.SrqInitSpec;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Device limits from the profile, and the argument checks the kernel makes before creating anything. */
class DeviceLimitsTest {

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
    void cqeAboveMaxCqeOrBelowOneFailsWithEinval() {
        assertVerbFails(() -> cqVerbs.createCq(ctx, 32768, null, 0), "ibv_create_cq", Errno.EINVAL);
        assertVerbFails(() -> cqVerbs.createCq(ctx, 0, null, 0), "ibv_create_cq", Errno.EINVAL);
        assertThat(cqVerbs.createCq(ctx, 32767, null, 0).capacity()).isEqualTo(32767);
        ContextHandle hca = rig.open("mlx5_0");
        assertThat(cqVerbs.createCq(hca, 32768, null, 0).capacity()).isEqualTo(65535);
        assertVerbFails(() -> cqVerbs.createCq(hca, 4194304, null, 0), "ibv_create_cq", Errno.EINVAL);
    }

    @Test
    void cqCapacityIsRoundedUpToTwoToTheNMinusOneAsRxeReports() {
        assertThat(cqVerbs.createCq(ctx, 1, null, 0).capacity()).isEqualTo(1);
        assertThat(cqVerbs.createCq(ctx, 10, null, 0).capacity()).isEqualTo(15);
        assertThat(cqVerbs.createCq(ctx, 16, null, 0).capacity()).isEqualTo(31);
    }

    @Test
    void aCompletionVectorOutsideNumCompVectorsFailsWithEinval() {
        assertVerbFails(() -> cqVerbs.createCq(ctx, 8, null, 2), "ibv_create_cq", Errno.EINVAL);
        assertVerbFails(() -> cqVerbs.createCq(ctx, 8, null, -1), "ibv_create_cq", Errno.EINVAL);
        cqVerbs.createCq(ctx, 8, null, 1);
    }

    @Test
    void aPortTheDeviceDoesNotHaveFailsWithEinval() {
        assertVerbFails(() -> deviceVerbs.queryPort(ctx, 0), "ibv_query_port", Errno.EINVAL);
        assertVerbFails(() -> deviceVerbs.queryPort(ctx, 2), "ibv_query_port", Errno.EINVAL);
        CqHandle cq = cqVerbs.createCq(ctx, 8, null, 0);
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        assertVerbFails(() -> qpVerbs.modifyQp(qp, QpModification.init(2, 0, EnumSet.noneOf(AccessFlag.class))),
                "ibv_modify_qp", Errno.EINVAL);
        assertVerbFails(() -> ahVerbs.createAh(pd, AddressVector.roce(2, deviceVerbs.queryGid(ctx, 1, 0), 0)),
                "ibv_create_ah", Errno.EINVAL);
    }

    @Test
    void aGidIndexOutsideTheTableFailsWithEinvalAndAnEmptyEntryWithEnodata() {
        assertVerbFails(() -> deviceVerbs.queryGid(ctx, 1, 1024), "ibv_query_gid", Errno.EINVAL);
        assertVerbFails(() -> deviceVerbs.queryGid(ctx, 1, -1), "ibv_query_gid", Errno.EINVAL);
        var gid = deviceVerbs.queryGid(ctx, 1, 0);
        assertVerbFails(() -> ahVerbs.createAh(pd, new AddressVector(0, 0, 0, 0, 1, new GlobalRoute(gid, 0, 1, 1, 0))),
                "ibv_create_ah", Errno.ENODATA);
    }

    @Test
    void aRoceAddressWithoutGrhFailsWithEinval() {
        assertVerbFails(() -> ahVerbs.createAh(pd, AddressVector.infiniband(1, 5)), "ibv_create_ah", Errno.EINVAL);
    }

    @Test
    void qpCapabilitiesAboveTheDeviceLimitsFailWithEinval() {
        CqHandle cq = cqVerbs.createCq(ctx, 8, null, 0);
        int maxWr = deviceVerbs.queryDevice(ctx).maxQpWr();
        assertVerbFails(() -> createRc(cq, new QpCapabilities(maxWr + 1, 1, 1, 1, 0)), "ibv_create_qp_ex",
                Errno.EINVAL);
        assertVerbFails(() -> createRc(cq, new QpCapabilities(1, 1, 33, 1, 0)), "ibv_create_qp_ex", Errno.EINVAL);
        assertVerbFails(() -> createRc(cq, new QpCapabilities(1, 1, 1, 33, 0)), "ibv_create_qp_ex", Errno.EINVAL);
        assertVerbFails(() -> createRc(cq, new QpCapabilities(1, 1, 1, 1, 513)), "ibv_create_qp_ex", Errno.EINVAL);
        QpHandle qp = createRc(cq, new QpCapabilities(10, 10, 1, 1, 512));
        assertThat(qp.capabilities()).as("rxe sizes the WQE for the inline data and reports SGEs from it")
                .isEqualTo(new QpCapabilities(10, 10, 32, 1, 512));
        assertThat(qpVerbs.queryQp(qp).capabilities().maxSendWr()).as("queues are 2^n - 1 slots").isEqualTo(15);
    }

    private QpHandle createRc(CqHandle cq, QpCapabilities caps) {
        return qpVerbs.createQp(ctx, new QpInitSpec(QpType.RC, pd, null, cq, cq, null, caps, false));
    }

    @Test
    void aQpWithoutPdOrCqFailsWithEinval() {
        CqHandle cq = cqVerbs.createCq(ctx, 8, null, 0);
        assertVerbFails(() -> qpVerbs.createQp(ctx, new QpInitSpec(QpType.RC, null, null, cq, cq, null,
                QpCapabilities.of(1, 1), false)), "ibv_create_qp_ex", Errno.EINVAL);
        assertVerbFails(() -> qpVerbs.createQp(ctx, new QpInitSpec(QpType.RC, pd, null, cq, null, null,
                QpCapabilities.of(1, 1), false)), "ibv_create_qp_ex", Errno.EINVAL);
    }

    @Test
    void reachingAnObjectLimitFailsWithTheDriversErrno() {
        DeviceProfile tiny = DeviceProfile.rxe("rxe0").toBuilder().maxPd(2).maxMr(1).maxQp(1).maxCq(2).build();
        DeviceProfile tinyHca = DeviceProfile.mlx5("mlx5_0").toBuilder().maxPd(1).build();
        try (VerbsRig small = new VerbsRig(tiny, tinyHca)) {
            ContextHandle c = small.open("rxe0");
            PdHandle p = small.provider.domainVerbs().allocPd(c);
            small.provider.domainVerbs().allocPd(c);
            // rxe's object pools answer EINVAL when full (observed for max_ah), its MR pool ENOMEM.
            assertVerbFails(() -> small.provider.domainVerbs().allocPd(c), "ibv_alloc_pd", Errno.EINVAL);
            small.register(p, small.buffer(64));
            assertVerbFails(() -> small.register(p, small.buffer(64)), "ibv_reg_mr", Errno.ENOMEM);
            CqHandle cq = small.provider.completionVerbs().createCq(c, 4, null, 0);
            small.qp(c, p, cq, QpType.RC);
            assertVerbFails(() -> small.qp(c, p, cq, QpType.RC), "ibv_create_qp_ex", Errno.EINVAL);

            ContextHandle hca = small.open("mlx5_0");
            small.provider.domainVerbs().allocPd(hca);
            assertVerbFails(() -> small.provider.domainVerbs().allocPd(hca), "ibv_alloc_pd", Errno.ENOMEM);
        }
    }

    @Test
    void leakedObjectsOfAClosedContextStillCountAgainstTheLimit() {
        DeviceProfile tiny = DeviceProfile.rxe("rxe0").toBuilder().maxPd(1).build();
        try (VerbsRig small = new VerbsRig(tiny)) {
            ContextHandle c = small.open("rxe0");
            small.provider.domainVerbs().allocPd(c);
            small.provider.deviceVerbs().closeDevice(c);
            ContextHandle again = small.open("rxe0");
            assertVerbFails(() -> small.provider.domainVerbs().allocPd(again), "ibv_alloc_pd", Errno.EINVAL);
        }
    }

    @Test
    void registeringHeapMemoryIsAProgrammingError() {
        assertThatThrownBy(() -> mrVerbs.regMr(pd, MemorySegment.ofArray(new byte[64]), VerbsRig.ALL_ACCESS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heap");
    }

    @Test
    void registeringZeroBytesFailsWithEinval() {
        assertVerbFails(() -> mrVerbs.regMr(pd, rig.buffer(64).asSlice(0, 0), VerbsRig.ALL_ACCESS), "ibv_reg_mr",
                Errno.EINVAL);
    }

    @Test
    void remoteWriteOrAtomicWithoutLocalWriteFailsWithEinval() {
        MemorySegment buf = rig.buffer(64);
        assertVerbFails(() -> mrVerbs.regMr(pd, buf, AccessFlag.REMOTE_WRITE.bit()), "ibv_reg_mr", Errno.EINVAL);
        assertVerbFails(() -> mrVerbs.regMr(pd, buf, AccessFlag.REMOTE_ATOMIC.bit()), "ibv_reg_mr", Errno.EINVAL);
        MrHandle readOnly = mrVerbs.regMr(pd, buf, AccessFlag.REMOTE_READ.bit());
        assertThat(readOnly.rkey()).isEqualTo(readOnly.lkey());
        MrHandle local = mrVerbs.regMr(pd, buf, AccessFlag.LOCAL_WRITE.bit());
        assertThat(local.rkey()).as("rxe gives no rkey without remote access").isZero();
        assertThat(local.address()).isEqualTo(buf.address());
        assertThat(local.length()).isEqualTo(64);
    }

    @Test
    void onDemandPagingIsRefusedBySoftRoce() {
        assertVerbFails(() -> mrVerbs.regMr(pd, rig.buffer(64), AccessFlag.ON_DEMAND.bit()
                | AccessFlag.LOCAL_WRITE.bit()), "ibv_reg_mr", Errno.EINVAL);
    }

    @Test
    void multicastNeedsAUdQpAndAMulticastGid() {
        CqHandle cq = cqVerbs.createCq(ctx, 8, null, 0);
        QpHandle rc = rig.qp(ctx, pd, cq, QpType.RC);
        QpHandle ud = rig.qp(ctx, pd, cq, QpType.UD);
        var group = VerbsRig.multicastGid(1);
        assertVerbFails(() -> qpVerbs.attachMcast(rc, group, 0), "ibv_attach_mcast", Errno.EINVAL);
        assertVerbFails(() -> qpVerbs.attachMcast(ud, deviceVerbs.queryGid(ctx, 1, 0), 0), "ibv_attach_mcast",
                Errno.EINVAL);
        qpVerbs.attachMcast(ud, group, 0);
        qpVerbs.attachMcast(ud, group, 0);
        qpVerbs.detachMcast(ud, group, 0);
        assertVerbFails(() -> qpVerbs.detachMcast(ud, group, 0), "ibv_detach_mcast", Errno.EINVAL);
    }

    @Test
    void onInfinibandAMulticastAttachNeedsAMulticastLid() {
        VerbsRig ibRig = new VerbsRig(DeviceProfile.mlx5Infiniband("mlx5_ib0"));
        QueuePairVerbs ibQpVerbs = ibRig.provider.queuePairVerbs();
        ContextHandle hca = ibRig.open("mlx5_ib0");
        PdHandle hcaPd = ibRig.provider.domainVerbs().allocPd(hca);
        CqHandle cq = ibRig.provider.completionVerbs().createCq(hca, 8, null, 0);
        QpHandle ud = ibRig.qp(hca, hcaPd, cq, QpType.UD);
        assertVerbFails(() -> ibQpVerbs.attachMcast(ud, VerbsRig.multicastGid(2), 5), "ibv_attach_mcast",
                Errno.EINVAL);
        ibQpVerbs.attachMcast(ud, VerbsRig.multicastGid(2), 0xc001);
        ibRig.close();
    }

    @Test
    void srqLimitsAreChecked() {
        assertVerbFails(() -> srqVerbs.createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null, null, 0, 1, 0)),
                "ibv_create_srq", Errno.EINVAL);
        assertVerbFails(() -> srqVerbs.createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null, null, 4, 28, 0)),
                "ibv_create_srq", Errno.EINVAL);
        assertThat(srqVerbs.createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null, null, 4, 27, 0)).srqNum())
                .as("basic SRQs have no XRC number").isZero();
    }
}
