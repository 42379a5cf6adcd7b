package io.rdmaverbs.verbs.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import static org.assertj.core.api.Assertions.fail;

/**
 * The provider-neutral scenario suite, on each selected target ({@link VerbsTarget#selected()}): the
 * simulated provider's rxe and mlx5 profiles by default, the real device in the soft-RoCE guest.
 *
 * <p>With {@code -Drdma.verbs.differential=true} (the guest run) a last container replays every scenario
 * on the simulated rxe profile and requires the same step record as the real device's run: the
 * simulated provider is only as good as its agreement with the kernel. A disagreement fails naming the
 * step, the kernel's answer and the simulator's.
 */
class ScenarioSuiteTest {

    static final String DIFFERENTIAL_PROPERTY = "rdma.verbs.differential";
    /**
     * Runs only the scenarios whose name contains this text (a guest run of one scenario, many times over,
     * without the suite's other minutes); unset, every scenario.
     */
    static final String ONLY_PROPERTY = "rdma.verbs.scenario.only";

    /** The real device's record of each scenario, kept for the differential container. */
    private final Map<String, Differential.Result> kernelRecords = new ConcurrentHashMap<>();

    @TestFactory
    Stream<DynamicContainer> scenarios() {
        List<DynamicContainer> containers = new ArrayList<>();
        List<Scenario> scenarios = selected();
        for (VerbsTarget target : VerbsTarget.selected()) {
            containers.add(DynamicContainer.dynamicContainer(target.name(),
                    scenarios.stream().map(scenario -> scenarioOn(target, scenario))));
        }
        if (Boolean.getBoolean(DIFFERENTIAL_PROPERTY)) {
            containers.add(DynamicContainer.dynamicContainer("kernel and simulator agree step for step",
                    scenarios.stream().map(this::differential)));
        }
        return containers.stream();
    }

    private static List<Scenario> selected() {
        String only = System.getProperty(ONLY_PROPERTY, "");
        List<Scenario> scenarios = ScenarioCatalog.all().stream().filter(s -> s.name().contains(only)).toList();
        if (scenarios.isEmpty()) {
            fail("no scenario's name contains '%s' (%s)", only, ONLY_PROPERTY);
        }
        return scenarios;
    }

    private DynamicNode scenarioOn(VerbsTarget target, Scenario scenario) {
        return DynamicTest.dynamicTest(scenario.name(), () -> {
            Differential.Result result = Differential.run(target, scenario);
            if (target.kernelLeakCheck()) {
                kernelRecords.put(scenario.name(), result);
            }
            if (result.failure() != null) {
                throw result.failure();
            }
        });
    }

    private DynamicNode differential(Scenario scenario) {
        return DynamicTest.dynamicTest(scenario.name(), () -> {
            Differential.Result kernel = kernelRecords.computeIfAbsent(scenario.name(), name -> Differential.run(
                    VerbsTarget.nativeDevice(System.getProperty(VerbsTarget.DEVICE_PROPERTY)), scenario));
            Differential.Result simulator = Differential.run(VerbsTarget.simulatedRxe(), scenario);
            String disagreement = Differential.firstDisagreement(kernel, simulator);
            if (disagreement != null) {
                fail("kernel and simulator disagree in '%s': %s%nkernel:    %s%nsimulator: %s", scenario.name(),
                        disagreement, kernel.steps(), simulator.steps());
            }
        });
    }
}
