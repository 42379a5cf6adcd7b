package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;

import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.StuckReference.Consequence;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A dependent's stuck reference is worded when read, and reads and compares as one worded when made. */
class StuckReferenceTest {

    private final Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")));
    private final DeviceContext ctx = verbs.openDevice("rxe0");
    private final ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
    private final CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16), "cq");

    @AfterEach
    void close() {
        verbs.close();
    }

    @Test
    void aDependentsMessageNamesBothAndTheVerbsOutcomeAndEqualsTheEagerlyWordedOne() {
        MemoryRegion mr = pd.allocateMemory(64, EnumSet.noneOf(AccessFlag.class), "mr");
        StuckReference used = single(pd.stuckReferences());

        assertThat(used.message()).isEqualTo("pd 'pd' (#" + pd.ref().id() + " on rxe0) is still used by mr 'mr' (#"
                + mr.ref().id() + " on rxe0): ibv_dealloc_pd would fail with EBUSY").isSameAs(used.message());
        assertThat(used).hasToString(used.message());
        StuckReference eager = new StuckReference(used.resource(), used.verb(), Consequence.FAILS, Errno.EBUSY,
                Cause.DEPENDENT_RESOURCE, used.blocker(), null, used.message());
        assertThat(used).isEqualTo(eager).hasSameHashCodeAs(eager);
        assertThat(new StuckReference(used.resource(), used.verb(), Consequence.FAILS, Errno.EBUSY,
                Cause.DEPENDENT_RESOURCE, used.blocker(), null, "another sentence")).isNotEqualTo(used);
    }

    @Test
    void aContextsLeakMessageIsWordedFromItsOwnParts() {
        List<StuckReference> leaks = ctx.stuckReferences();

        assertThat(leaks).hasSize(2).allSatisfy(s -> {
            assertThat(s.consequence()).isEqualTo(Consequence.LEAKS);
            assertThat(s.message()).startsWith("ctx 'rxe0'").contains(" still has ")
                    .contains(s.blocker().name()).endsWith("(it would leak)");
        });
        assertThat(leaks).extracting(s -> s.blocker().name()).containsExactly("pd", "cq");
    }

    private static StuckReference single(List<StuckReference> references) {
        assertThat(references).hasSize(1);
        return references.getFirst();
    }
}
