package io.rdmaverbs.verbs.scenario;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The comparison behind the differential check: the step records of one scenario on the kernel and on
 * the simulated provider must be identical, step for step.
 */
final class Differential {

    private Differential() {
    }

    /** A scenario's record and how it ended. */
    record Result(List<Steps.Outcome> steps, @Nullable Throwable failure) {
    }

    /** Runs {@code scenario} on {@code target}, catching its failure (it is part of the result). */
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

    /** The first step the two records disagree on, in words; {@code null} when they agree. */
    static @Nullable String firstDisagreement(Result kernel, Result simulator) {
        List<Steps.Outcome> k = kernel.steps();
        List<Steps.Outcome> s = simulator.steps();
        for (int i = 0; i < Math.max(k.size(), s.size()); i++) {
            Steps.Outcome ko = i < k.size() ? k.get(i) : null;
            Steps.Outcome so = i < s.size() ? s.get(i) : null;
            if (ko == null || so == null || !ko.equals(so)) {
                if (ko != null && so != null && !ko.label().equals(so.label())) {
                    return "step " + (i + 1) + ": the kernel run did '" + ko.label() + "' and got " + ko.result()
                            + ", the simulator run did '" + so.label() + "' and got " + so.result();
                }
                String label = ko != null ? ko.label() : so.label();
                return "step " + (i + 1) + " '" + label + "': the kernel answered "
                        + (ko == null ? "(no such step: " + ending(kernel) + ")" : ko.result())
                        + ", the simulator answered "
                        + (so == null ? "(no such step: " + ending(simulator) + ")" : so.result());
            }
        }
        if ((kernel.failure() == null) != (simulator.failure() == null)) {
            return "after the same steps, the kernel run " + ending(kernel) + " and the simulator run "
                    + ending(simulator);
        }
        return null;
    }

    private static String ending(Result r) {
        return r.failure() == null ? "completed" : "failed: " + r.failure();
    }
}
