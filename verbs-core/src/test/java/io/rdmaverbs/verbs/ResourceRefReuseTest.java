package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.List;

import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedNetwork;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.Test;

/**
 * A resource keeps the ref it built while the ref still names it: the graph's reports ask for the refs of
 * every resource and dependent, and must never show a stale name or device.
 */
class ResourceRefReuseTest {

    @Test
    void aRefIsReusedUntilTheResourceIsRenamedAndThenNamesItByItsNewName() {
        try (Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")))) {
            ProtectionDomain pd = verbs.openDevice("rxe0").allocateProtectionDomain();
            ResourceRef generated = pd.ref();
            assertThat(pd.ref()).isSameAs(generated);
            assertThat(generated.name()).isEqualTo("pd#" + pd.id()).isEqualTo(pd.name());

            pd.name("orders");
            ResourceRef renamed = pd.ref();
            assertThat(renamed).isNotSameAs(generated)
                    .isEqualTo(new ResourceRef(pd.id(), ResourceKind.PROTECTION_DOMAIN, "orders", "rxe0", "ibv_dealloc_pd"));
            assertThat(pd.ref()).isSameAs(renamed);
            assertThat(pd.name()).isEqualTo("orders");

            // The same name again, in another string: still the resource's name, so the ref is rebuilt
            // or kept, but never wrong.
            pd.name(new String("orders".toCharArray()));
            assertThat(pd.ref().name()).isEqualTo("orders");
            pd.name("payments");
            assertThat(pd.ref().name()).isEqualTo("payments");
            assertThat(pd.toString()).isEqualTo("pd 'payments' (#" + pd.id() + " on rxe0)");
        }
    }

    @Test
    void aCmIdsRefNamesItsDeviceOnceLibrdmacmBoundTheIdToOne() {
        SimulatedProvider host = SimulatedProvider.on(SimulatedNetwork.create(), DeviceProfile.rxe("rxe0"));
        try (Verbs verbs = Verbs.using(host)) {
            CmId listener = verbs.createCmEventChannel().createId(CmPortSpace.TCP, "listener");
            ResourceRef unbound = listener.ref();
            assertThat(unbound.device()).isEqualTo(ResourceRef.NO_DEVICE);
            assertThat(listener.ref()).isSameAs(unbound);

            listener.bind(new InetSocketAddress(host.addresses("rxe0").getFirst(), 7471));
            assertThat(listener.context()).isNotNull();
            assertThat(listener.ref().device()).isEqualTo("rxe0");
            assertThat(verbs.stuckReferences()).filteredOn(s -> s.blocker() != null && s.blocker().id() == listener.id())
                    .extracting(s -> s.blocker().device()).isNotEmpty().containsOnly("rxe0");
            for (VerbsResource r : verbs.resources()) {
                assertThat(r.stuckReferenceCount()).as("%s", r).isEqualTo(r.stuckReferences().size());
            }
        }
    }

    @Test
    void aWalkReachesEachResourceOnceWhetherItsIdIsInTheDenseRangeOrNot() {
        try (Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")));
                Verbs other = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")))) {
            DeviceContext ctx = verbs.openDevice("rxe0");
            ProtectionDomain pd = ctx.allocateProtectionDomain();
            ReachedResources reached = ReachedResources.from(List.of(ctx, pd));
            // Created after the set: outside its range of ids.
            ProtectionDomain later = ctx.allocateProtectionDomain();
            // Another graph's resource with the same id as pd.
            ProtectionDomain foreign = null;
            DeviceContext otherCtx = other.openDevice("rxe0");
            while (foreign == null || foreign.id() < pd.id()) {
                foreign = otherCtx.allocateProtectionDomain();
            }
            assertThat(foreign.id()).isEqualTo(pd.id());

            for (VerbsResource r : List.of(pd, later)) {
                assertThat(reached.contains(r)).isFalse();
                assertThat(reached.add(r)).isTrue();
                assertThat(reached.add(r)).isFalse();
                assertThat(reached.contains(r)).isTrue();
                assertThat(reached.containsId(r.id())).isTrue();
            }
            assertThat(reached.contains(ctx)).isFalse();
            assertThat(reached.containsId(ctx.id())).isFalse();
            assertThat(reached.contains(foreign)).as("the same id in another graph").isFalse();
            assertThat(reached.add(foreign)).isTrue();
            assertThat(reached.contains(foreign)).isTrue();
        }
    }

    @Test
    void aSparseRangeOfIdsIsReachedThroughTheHashSetAlone() {
        try (Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")))) {
            DeviceContext ctx = verbs.openDevice("rxe0");
            ProtectionDomain first = ctx.allocateProtectionDomain();
            for (int i = 0; i < 5_000; i++) {
                ctx.allocateProtectionDomain().close();
            }
            ProtectionDomain last = ctx.allocateProtectionDomain();
            ReachedResources reached = ReachedResources.from(List.of(first, last));
            assertThat(reached.add(first)).isTrue();
            assertThat(reached.add(last)).isTrue();
            assertThat(reached.add(last)).isFalse();
            assertThat(reached.containsId(first.id())).isTrue();
            assertThat(reached.containsId(last.id() - 1)).isFalse();
            assertThat(verbs.planClose(List.of(last, first), ClosePolicy.STRICT).steps())
                    .extracting(ClosePlan.Step::resource).containsExactly(first.ref(), last.ref());
        }
    }
}
