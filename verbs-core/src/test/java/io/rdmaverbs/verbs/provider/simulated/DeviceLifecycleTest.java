package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.NodeType;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;

import org.junit.jupiter.api.Test;

class DeviceLifecycleTest {

    @Test
    void openingADeviceTheProviderDoesNotHaveFailsWithEnodev() {
        SimulatedProvider provider = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        assertVerbFails(() -> provider.deviceVerbs().openDevice(new DeviceInfo("mlx5_7", 1234L, NodeType.CA)),
                "ibv_open_device",
                Errno.ENODEV);
    }

    @Test
    void aDeviceCanBeOpenedManyTimesAndEachContextHasItsOwnObjects() {
        try (VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"))) {
            ContextHandle a = rig.open("rxe0");
            ContextHandle b = rig.open("rxe0");
            assertThat(a).isNotSameAs(b);
            rig.provider.domainVerbs().allocPd(a);
            rig.provider.domainVerbs().allocPd(b);
            assertThat(rig.provider.resourceCounts("rxe0").contexts()).isEqualTo(2);
            assertThat(rig.provider.resourceCounts("rxe0").pds()).isEqualTo(2);
        }
    }

    @Test
    void closeDeviceSucceedsButLeavesItsObjectsLeakedAndCounted() {
        try (VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"))) {
            ContextHandle ctx = rig.open("rxe0");
            PdHandle pd = rig.provider.domainVerbs().allocPd(ctx);
            CqHandle cq = rig.provider.completionVerbs().createCq(ctx, 16, null, 0);
            QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);

            rig.provider.deviceVerbs().closeDevice(ctx);

            assertThat(rig.provider.leakedObjects()).extracting(LeakedObject::kind)
                    .containsExactly(KernelObjectKind.PD, KernelObjectKind.CQ, KernelObjectKind.QP);
            assertThat(rig.provider.leakedObjects()).allSatisfy(leak -> {
                assertThat(leak.device()).isEqualTo("rxe0");
                assertThat(leak.context()).isEqualTo(ctx.describe());
            });
            assertThat(rig.provider.resourceCounts("rxe0").qps()).isEqualTo(1);
            assertThat(rig.provider.resourceCounts("rxe0").contexts()).isZero();
            assertThatThrownBy(() -> rig.provider.queuePairVerbs().destroyQp(qp))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            assertThatThrownBy(() -> rig.provider.deviceVerbs().closeDevice(ctx))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void closeDeviceWithEverythingReleasedLeaksNothing() {
        try (VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"))) {
            ContextHandle ctx = rig.open("rxe0");
            PdHandle pd = rig.provider.domainVerbs().allocPd(ctx);
            rig.provider.domainVerbs().deallocPd(pd);
            rig.provider.deviceVerbs().closeDevice(ctx);
            assertThat(rig.provider.leakedObjects()).isEmpty();
            assertThat(rig.provider.resourceCounts("rxe0").objects()).isZero();
        }
    }

    @Test
    void handlesFromAnotherProviderAreRefusedBeforeAnything() {
        SimulatedProvider mine = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        SimulatedProvider other = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        ContextHandle foreign = other.deviceVerbs().openDevice(other.deviceVerbs().devices().get(0));
        PdHandle foreignPd = other.domainVerbs().allocPd(foreign);

        assertThatThrownBy(() -> mine.domainVerbs().allocPd(foreign)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not created by this simulated provider");
        assertThatThrownBy(() -> mine.domainVerbs().deallocPd(foreignPd)).isInstanceOf(IllegalArgumentException.class);
        assertThat(other.resourceCounts("rxe0").pds()).isEqualTo(1);
    }

    @Test
    void destroyedHandlesAreRefusedAndADestroyIsNotRepeated() {
        SimulatedProvider provider = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        ContextHandle ctx = provider.deviceVerbs().openDevice(provider.deviceVerbs().devices().get(0));
        PdHandle pd = provider.domainVerbs().allocPd(ctx);
        provider.domainVerbs().deallocPd(pd);

        assertThatThrownBy(() -> provider.domainVerbs().deallocPd(pd)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already destroyed");
        assertThatThrownBy(() -> provider.addressHandleVerbs().createAh(pd,
                null)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void handlesDescribeThemselvesByKindNumberAndDevice() {
        try (VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"))) {
            ContextHandle ctx = rig.open("rxe0");
            PdHandle pd = rig.provider.domainVerbs().allocPd(ctx);
            CqHandle cq = rig.provider.completionVerbs().createCq(ctx, 4, null, 0);
            QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
            assertThat(ctx.describe()).isEqualTo("sim:ibv_context#1 on rxe0");
            assertThat(cq.describe()).isEqualTo("sim:ibv_cq#1 on rxe0");
            assertThat(qp.qpNum()).as("rxe hands out QPN 17 first").isEqualTo(17);
            assertThat(qp.describe()).isEqualTo("sim:ibv_qp#17 on rxe0");
        }
    }

    @Test
    void objectsOfOneContextCannotBeUsedInAnother() {
        try (VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"))) {
            ContextHandle a = rig.open("rxe0");
            ContextHandle b = rig.open("rxe0");
            PdHandle pdOfA = rig.provider.domainVerbs().allocPd(a);
            CqHandle cqOfB = rig.provider.completionVerbs().createCq(b, 4, null, 0);
            assertVerbFails(() -> rig.qp(b, pdOfA, cqOfB, QpType.RC), "ibv_create_qp_ex", Errno.EINVAL);
        }
    }
}
