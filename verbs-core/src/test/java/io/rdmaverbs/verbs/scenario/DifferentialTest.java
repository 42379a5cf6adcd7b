package io.rdmaverbs.verbs.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.fail;

/**
 * The simulated provider is only as good as its agreement with the kernel: every scenario runs on the
 * real device and on the simulated rxe profile, and the two step records must be identical. A
 * disagreement fails naming the step, the kernel's answer and the simulator's. Runs in the soft-RoCE
 * guest ({@code -Drdma.verbs.differential=true}).
 */
@EnabledIfSystemProperty(named = "rdma.verbs.differential", matches = "true")
class DifferentialTest {

    @TestFactory
    Stream<DynamicTest> kernelAndSimulatorAgreeStepForStep() {
        VerbsTarget kernel = VerbsTarget.nativeDevice(System.getProperty(VerbsTarget.DEVICE_PROPERTY));
        VerbsTarget simulator = VerbsTarget.simulatedRxe();
        return ScenarioCatalog.all().stream().map(scenario -> DynamicTest.dynamicTest(scenario.name(), () -> {
            Result k = run(kernel, scenario);
            Result s = run(simulator, scenario);
            String diff = firstDisagreement(k, s);
            if (diff != null) {
                fail("kernel and simulator disagree in '%s': %s%nkernel:    %s%nsimulator: %s", scenario.name(), diff,
                        k.steps, s.steps);
            }
        }));
    }

    record Result(List<Steps.Outcome> steps, @Nullable Throwable failure) {
    }

    static Result run(VerbsTarget target, Scenario scenario) {
        Steps steps = null;
        Throwable failure = null;
        try (ScenarioRun run = ScenarioRun.start(target)) {
            steps = run.steps();
            try {
                scenario.body().run(run);
            } catch (Throwable t) {
                failure = t;
            }
        } catch (Throwable t) {
            if (failure == null) {
                failure = t;
            }
        }
        return new Result(steps == null ? List.of() : steps.outcomes(), failure);
    }

    static @Nullable String firstDisagreement(Result kernel, Result simulator) {
        List<Steps.Outcome> k = kernel.steps;
        List<Steps.Outcome> s = simulator.steps;
        for (int i = 0; i < Math.max(k.size(), s.size()); i++) {
            Steps.Outcome ko = i < k.size() ? k.get(i) : null;
            Steps.Outcome so = i < s.size() ? s.get(i) : null;
            if (ko == null || so == null || !ko.equals(so)) {
                String label = ko != null ? ko.label() : so.label();
                return "step " + (i + 1) + " '" + label + "': the kernel answered "
                        + (ko == null ? "(no such step: " + failureOf(kernel) + ")" : ko.result())
                        + ", the simulator answered "
                        + (so == null ? "(no such step: " + failureOf(simulator) + ")" : so.result());
            }
        }
        if ((kernel.failure == null) != (simulator.failure == null)) {
            return "one run failed after the same steps: kernel " + failureOf(kernel) + ", simulator "
                    + failureOf(simulator);
        }
        return null;
    }

    private static String failureOf(Result r) {
        List<String> parts = new ArrayList<>();
        if (r.failure != null) {
            parts.add(r.failure.toString());
        }
        return parts.isEmpty() ? "completed" : String.join("; ", parts);
    }
}
