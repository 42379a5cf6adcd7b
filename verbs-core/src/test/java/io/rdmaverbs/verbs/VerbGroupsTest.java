package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.Test;

/**
 * The provider SPI is one object per verb group, and the graph's data path keeps its group instead of
 * asking the provider per call.
 */
class VerbGroupsTest {

    @Test
    void everyGroupAccessorOfBothProvidersReturnsTheSameObjectEachTime() throws Exception {
        List<Method> accessors = Arrays.stream(VerbsProvider.class.getMethods())
                .filter(m -> m.getParameterCount() == 0 && m.getReturnType().isInterface()).toList();
        assertThat(accessors).hasSize(9);
        for (VerbsProvider provider : List.of(SimulatedProvider.of(DeviceProfile.rxe("rxe0")),
                NativeVerbsProvider.load())) {
            for (Method accessor : accessors) {
                if (provider instanceof NativeVerbsProvider && accessor.getName().equals("connectionVerbs")) {
                    // The native ConnectionVerbs over librdmacm is not written yet: a typed refusal, not null.
                    assertThatThrownBy(provider::connectionVerbs).isInstanceOf(ProviderUnavailableException.class);
                    continue;
                }
                Object group = accessor.invoke(provider);
                assertThat(group).as("%s.%s()", provider.name(), accessor.getName())
                        .isInstanceOf(accessor.getReturnType()).isSameAs(accessor.invoke(provider));
            }
        }
    }

    @Test
    void postingPollingAndArmingAskTheProviderForNoGroup() {
        CountingProvider provider = new CountingProvider(SimulatedProvider.of(DeviceProfile.rxe("rxe0")));
        try (Verbs verbs = Verbs.using(provider)) {
            DeviceContext ctx = verbs.openDevice("rxe0");
            ProtectionDomain pd = ctx.allocateProtectionDomain();
            CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16));
            QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, QpCapabilities.of(16, 16)));
            qp.toInit(1, EnumSet.noneOf(AccessFlag.class));
            SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(16));
            MemoryRegion mr = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE));
            ReceiveRequest toQp = qp.newReceiveRequest(1).single(mr, 0, 64);
            ReceiveRequest toSrq = srq.newReceiveRequest(1).single(mr, 64, 64);
            WorkCompletions completions = cq.newWorkCompletions(4);
            int asked = provider.groupsHandedOut.get();

            for (int i = 0; i < 8; i++) {
                qp.postReceive(toQp.wrId(i));
                srq.postReceive(toSrq.wrId(i));
                cq.requestNotification(false);
                assertThat(cq.poll(completions)).isZero();
            }

            assertThat(provider.groupsHandedOut.get()).isEqualTo(asked);
        }
    }

    /** A provider that counts how often a group object is asked of it. */
    /** Counts the verb groups the graph asks its provider for. */
    private static final class CountingProvider extends ForwardingProvider {

        final AtomicInteger groupsHandedOut = new AtomicInteger();

        CountingProvider(VerbsProvider delegate) {
            super(delegate);
        }

        @Override
        <G> G handOut(G group) {
            groupsHandedOut.incrementAndGet();
            return group;
        }
    }
}
