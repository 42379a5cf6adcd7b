package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.Test;

/** A resource's dependents stay in id order, once each, whatever order they come and go in. */
class DependentsTest {

    @Test
    void dependentsAddedAndRemovedInAnyOrderStayInIdOrderOnceEach() {
        try (Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")))) {
            DeviceContext ctx = verbs.openDevice("rxe0");
            List<VerbsResource> all = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                all.add(ctx.allocateProtectionDomain());
            }
            Random random = new Random(7);
            for (int round = 0; round < 20; round++) {
                Dependents dependents = new Dependents();
                List<VerbsResource> model = new ArrayList<>();
                List<VerbsResource> shuffled = new ArrayList<>(all);
                Collections.shuffle(shuffled, random);
                for (VerbsResource r : shuffled) {
                    dependents.add(r);
                    model.add(r);
                    if (random.nextInt(4) == 0) {
                        // Added again (a second parent link): still once.
                        dependents.add(r);
                    }
                    if (random.nextInt(3) == 0) {
                        VerbsResource gone = model.get(random.nextInt(model.size()));
                        assertThat(dependents.remove(gone)).isTrue();
                        assertThat(dependents.remove(gone)).as("removed twice").isFalse();
                        model.remove(gone);
                    }
                }
                model.sort(Comparator.comparingLong(VerbsResource::id));
                assertThat(dependents.snapshot()).containsExactlyElementsOf(model);
                assertThat(dependents.size()).isEqualTo(model.size());
                // Newest first, as a teardown closes them, down to none.
                for (VerbsResource r : model.reversed()) {
                    assertThat(dependents.remove(r)).isTrue();
                }
                assertThat(dependents.snapshot()).isEmpty();
                assertThat(dependents.size()).isZero();
            }
        }
    }

    @Test
    void aResourceOfAnotherGraphWithTheSameIdIsNotTakenForADependent() {
        try (Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")));
                Verbs other = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")))) {
            ProtectionDomain mine = verbs.openDevice("rxe0").allocateProtectionDomain();
            ProtectionDomain theirs = other.openDevice("rxe0").allocateProtectionDomain();
            assertThat(theirs.id()).isEqualTo(mine.id());
            Dependents dependents = new Dependents();
            dependents.add(mine);
            assertThat(dependents.remove(theirs)).isFalse();
            assertThat(dependents.snapshot()).containsExactly(mine);
        }
    }
}
