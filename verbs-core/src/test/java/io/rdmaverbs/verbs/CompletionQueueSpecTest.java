package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.Test;

class CompletionQueueSpecTest {

    @Test
    void ofAsksForTheEntriesWithoutAChannelOnVectorZero() {
        assertThat(CompletionQueueSpec.of(16)).isEqualTo(new CompletionQueueSpec(16, null, 0));
    }

    @Test
    void aCqWithoutEntriesIsRejectedNamingTheField() {
        assertThatThrownBy(() -> CompletionQueueSpec.of(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("entries must be at least 1")
                .hasMessageContaining("was 0");
    }

    @Test
    void aNegativeCompletionVectorIsRejectedNamingTheField() {
        assertThatThrownBy(() -> CompletionQueueSpec.of(16).withCompVector(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("compVector must be >= 0")
                .hasMessageContaining("was -1");
    }

    @Test
    void withersChangeOnlyTheirOwnField() {
        try (Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.mlx5("mlx5_0")))) {
            CompletionChannel channel = verbs.openDevice("mlx5_0").createCompletionChannel("events");
            CompletionQueueSpec spec = CompletionQueueSpec.of(64).withChannel(channel).withCompVector(1);
            assertThat(spec).isEqualTo(new CompletionQueueSpec(64, channel, 1));
        }
    }

    @Test
    void theDeviceBoundsAreCheckedWhenTheCqIsCreated() {
        try (Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")))) {
            DeviceContext ctx = verbs.openDevice("rxe0");
            int maxCqe = ctx.attributes().maxCqe();
            int vectors = ctx.attributes().numCompVectors();
            assertThatThrownBy(() -> ctx.createCompletionQueue(CompletionQueueSpec.of(maxCqe + 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_cqe");
            assertThatThrownBy(() -> ctx.createCompletionQueue(CompletionQueueSpec.of(4).withCompVector(vectors)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("vectors are 0..");
            assertThat(verbs.resources()).containsExactly(ctx);
        }
    }

    @Test
    void aCqIsCreatedOnTheChannelAndVectorOfItsSpec() {
        try (Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.mlx5("mlx5_0")))) {
            DeviceContext ctx = verbs.openDevice("mlx5_0");
            CompletionChannel channel = ctx.createCompletionChannel();
            CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(32).withChannel(channel)
                    .withCompVector(ctx.attributes().numCompVectors() - 1), "cq");
            assertThat(cq.channel()).isSameAs(channel);
            assertThat(cq.compVector()).isEqualTo(ctx.attributes().numCompVectors() - 1);
            assertThat(cq.capacity()).isGreaterThanOrEqualTo(32);
            assertThat(cq.name()).isEqualTo("cq");
        }
    }
}
