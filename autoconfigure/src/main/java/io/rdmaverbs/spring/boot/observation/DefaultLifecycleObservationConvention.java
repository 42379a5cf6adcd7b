package io.rdmaverbs.spring.boot.observation;

import java.util.Map;

import io.micrometer.common.KeyValues;

/**
 * The step's own span name and tags, with {@link LifecycleStep#OUTCOME_TAG} once the step has ended
 * (Micrometer asks the convention again when the observation stops). The observation keeps the step's
 * name, which {@link LifecycleObservationContext} carries: {@link #getName()} has no context to tell
 * the device open from the teardown, so it names neither.
 */
public class DefaultLifecycleObservationConvention implements LifecycleObservationConvention {

    static final DefaultLifecycleObservationConvention INSTANCE = new DefaultLifecycleObservationConvention();

    @Override
    public String getContextualName(LifecycleObservationContext context) {
        return context.step().contextualName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LifecycleObservationContext context) {
        KeyValues tags = KeyValues.of(context.step().tags().entrySet(), Map.Entry::getKey, Map.Entry::getValue);
        String outcome = context.outcome();
        return outcome == null ? tags : tags.and(LifecycleStep.OUTCOME_TAG, outcome);
    }
}
