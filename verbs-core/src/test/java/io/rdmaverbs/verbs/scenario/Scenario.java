package io.rdmaverbs.verbs.scenario;

/**
 * One provider-neutral scenario: a behaviour written once against the public API, run on the
 * simulated provider here and on a real soft-RoCE device in the guest.
 *
 * @param name the behaviour, as a sentence (it becomes the test name)
 * @param body the steps
 */
public record Scenario(String name, Body body) {

    @FunctionalInterface
    public interface Body {
        void run(ScenarioRun run) throws Exception;
    }

    @Override
    public String toString() {
        return name;
    }
}
