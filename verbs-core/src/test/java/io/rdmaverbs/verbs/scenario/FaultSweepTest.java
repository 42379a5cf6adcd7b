package io.rdmaverbs.verbs.scenario;

import java.time.Duration;
import java.util.stream.Stream;

import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every scenario of the suite, on the simulated rxe and mlx5 profiles, with a fault at each provider
 * call in turn ({@link FaultSweep}). Prints what each sweep covered.
 */
class FaultSweepTest {

    /** A whole sweep of one scenario; a hang (a fault that makes a close wait forever) fails it. */
    private static final Duration SWEEP_TIMEOUT = Duration.ofSeconds(60);

    @TestFactory
    Stream<DynamicContainer> everyScenarioSurvivesAFaultAtEachProviderCall() {
        return Stream.of(DeviceProfile.rxe("rxe0"), DeviceProfile.mlx5("mlx5_0")).map(profile ->
                DynamicContainer.dynamicContainer("simulated " + profile.name(),
                        ScenarioCatalog.faultSweepable().stream().map(scenario -> DynamicTest.dynamicTest(scenario.name(), () -> {
                            FaultSweep.Coverage c = Assertions.assertTimeoutPreemptively(SWEEP_TIMEOUT,
                                    () -> new FaultSweep(profile, scenario).sweep(), () -> "sweeping '" + scenario.name()
                                            + "' on " + profile.name() + " hung");
                            System.out.printf("fault sweep %s on %s: %d injection points, %d runs%s%n", scenario.name(),
                                    profile.name(), c.injectionPoints(), c.runs(),
                                    c.everyPosition() ? "" : " (verb by verb: its threads spin on the data path)");
                        }))));
    }
}
