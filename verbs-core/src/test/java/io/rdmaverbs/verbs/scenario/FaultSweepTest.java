package io.rdmaverbs.verbs.scenario;

import java.time.Duration;
import java.util.stream.Stream;

import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Every scenario of the suite, on the simulated rxe and mlx5 profiles, with a fault at each provider
 * call in turn ({@link FaultSweep}); the connecting scenarios verb by verb, on rxe only. Prints what
 * each sweep covered.
 *
 * <p>The sweeps run concurrently, one per core (parallel execution is on in verbs-core's surefire run):
 * each makes its own simulated providers and shares nothing with another, and together they are most
 * of this module's test time. The class itself runs alone, as every other test class does.
 */
class FaultSweepTest {

    /** A whole sweep of one scenario; a hang (a fault that makes a close wait forever) fails it. */
    private static final Duration SWEEP_TIMEOUT = Duration.ofSeconds(60);
    /**
     * The first two calls of each verb: the client's and the server's end of a connection make most CM
     * verbs once each ({@code rdma_create_id}, {@code rdma_get_cm_event}, {@code rdma_destroy_id}, ...).
     */
    private static final int CONNECTING_OCCURRENCES_PER_VERB = 2;

    @TestFactory
    @Execution(ExecutionMode.CONCURRENT)
    Stream<DynamicContainer> everyScenarioSurvivesAFaultAtEachProviderCall() {
        return Stream.of(DeviceProfile.rxe("rxe0"), DeviceProfile.mlx5("mlx5_0")).map(profile ->
                DynamicContainer.dynamicContainer("simulated " + profile.name(), ScenarioCatalog.faultSweepable()
                        .stream().map(scenario -> swept(profile, scenario, new FaultSweep(profile, scenario)))));
    }

    /**
     * The simulated connection manager is one code path whatever the device profile (only the port's MTU
     * differs), so one profile is enough for the scenarios that connect.
     */
    @TestFactory
    @Execution(ExecutionMode.CONCURRENT)
    Stream<DynamicTest> everyConnectingScenarioSurvivesAFaultAtEachVerbItCalls() {
        DeviceProfile rxe = DeviceProfile.rxe("rxe0");
        return ScenarioCatalog.connecting().stream().map(scenario -> swept(rxe, scenario,
                FaultSweep.verbByVerb(rxe, scenario, CONNECTING_OCCURRENCES_PER_VERB)));
    }

    private static DynamicTest swept(DeviceProfile profile, Scenario scenario, FaultSweep sweep) {
        return DynamicTest.dynamicTest(scenario.name(), () -> {
            ThrowingSupplier<FaultSweep.Coverage> sweeping = sweep::sweep;
            FaultSweep.Coverage c = Assertions.assertTimeoutPreemptively(SWEEP_TIMEOUT, sweeping,
                    () -> "sweeping '" + scenario.name() + "' on " + profile.name() + " hung");
            System.out.printf("fault sweep %s on %s: %d injection points, %d runs%s%n", scenario.name(),
                    profile.name(), c.injectionPoints(), c.runs(),
                    c.everyPosition() ? "" : " (verb by verb)");
        });
    }
}
