package io.rdmaverbs.spring.boot.observation;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/** The context of a lifecycle step's observation: the step, and how it ended once it has. */
public final class LifecycleObservationContext extends Observation.Context {

    private final LifecycleStep step;
    private volatile @Nullable String outcome;

    public LifecycleObservationContext(LifecycleStep step) {
        this.step = step;
        setName(step.name());
    }

    public LifecycleStep step() {
        return step;
    }

    /** The {@link LifecycleStep#OUTCOME_TAG} value, set when the step ends. */
    public @Nullable String outcome() {
        return outcome;
    }

    void outcome(String outcome) {
        this.outcome = outcome;
    }
}
