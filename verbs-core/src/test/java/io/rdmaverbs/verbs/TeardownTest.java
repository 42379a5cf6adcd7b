package io.rdmaverbs.verbs;

import io.rdmaverbs.verbs.error.Errno;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MemoryRegionVerbs;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The close engine where the provider does not behave as the graph predicts. */
class TeardownTest {

    private final SimulatedProvider simulated = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
    private final List<MrHandle> regions = new ArrayList<>();

    /** A provider whose ibv_dealloc_pd takes the PD's memory regions along instead of failing with EBUSY. */
    private final VerbsProvider lenient = new ForwardingProvider(simulated) {
        private final DomainVerbs domains = around(DomainVerbs.class, simulated.domainVerbs(), (verb, args, call) -> {
            if (verb.getName().equals("deallocPd")) {
                regions.forEach(simulated.memoryRegionVerbs()::deregMr);
                regions.clear();
            }
            return call.proceed();
        });
        private final MemoryRegionVerbs memory = around(MemoryRegionVerbs.class, simulated.memoryRegionVerbs(),
                (verb, args, call) -> {
                    Object result = call.proceed();
                    if (result instanceof MrHandle mr) {
                        regions.add(mr);
                    }
                    return result;
                });

        @Override
        public DomainVerbs domainVerbs() {
            return domains;
        }

        @Override
        public MemoryRegionVerbs memoryRegionVerbs() {
            return memory;
        }
    };

    @Test
    void anAttemptTheProviderLetsThroughDespiteAPredictedEbusyEndsTheDependentsAsDefunct() {
        Verbs verbs = Verbs.using(lenient);
        List<String> closed = new ArrayList<>();
        verbs.addListener(new VerbsListener() {
            @Override
            public void closed(VerbsResource resource) {
                closed.add(resource.name());
            }
        });
        DeviceContext ctx = verbs.openDevice("rxe0");
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion mr = pd.registerMemory(arena.allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE), "mr");
            assertThat(pd.stuckReferences()).singleElement()
                    .satisfies(s -> assertThat(s.errno()).isEqualTo(Errno.EBUSY));

            pd.close(ClosePolicy.ATTEMPT);

            assertThat(pd.isClosed()).isTrue();
            assertThat(mr.isClosed()).as("the region went with its PD").isTrue();
            assertThat(closed).containsExactly("mr", "pd");
            assertThat(verbs.resources()).containsExactly(ctx);
            assertThatThrownBy(() -> mr.lease("reader")).isInstanceOf(ResourceClosedException.class)
                    .hasMessageContaining("defunct: its pd pd was released under it");
            mr.close(); // idempotent: a defunct resource is closed
        }
        ctx.close();
        assertThat(ctx.isClosed()).isTrue();
    }
}
