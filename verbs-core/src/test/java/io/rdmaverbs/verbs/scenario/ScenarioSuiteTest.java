package io.rdmaverbs.verbs.scenario;

import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The provider-neutral scenario suite, on each selected target ({@link VerbsTarget#selected()}): the
 * simulated provider's rxe and mlx5 profiles by default, the real device in the soft-RoCE guest.
 */
class ScenarioSuiteTest {

    @TestFactory
    Stream<DynamicContainer> scenarios() {
        return VerbsTarget.selected().stream().map(target -> DynamicContainer.dynamicContainer(target.name(),
                ScenarioCatalog.all().stream().map(scenario -> DynamicTest.dynamicTest(scenario.name(), () -> {
                    try (ScenarioRun run = ScenarioRun.start(target)) {
                        scenario.body().run(run);
                    }
                }))));
    }
}
