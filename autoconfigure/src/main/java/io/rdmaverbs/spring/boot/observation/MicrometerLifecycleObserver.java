package io.rdmaverbs.spring.boot.observation;

import java.util.function.Function;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Makes each lifecycle step a Micrometer {@link Observation}: a timer and, with a tracing bridge, a span.
 * A step that throws records the error on the observation and ends with the outcome {@value
 * LifecycleStep#ERROR}.
 */
public final class MicrometerLifecycleObserver implements LifecycleObserver {

    private final ObservationRegistry registry;

    public MicrometerLifecycleObserver(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public <T> T observe(LifecycleStep step, Supplier<T> action, Function<? super T, String> outcome) {
        Observation observation = Observation.createNotStarted(step.name(), registry)
                .contextualName(step.contextualName());
        step.tags().forEach(observation::lowCardinalityKeyValue);
        observation.start();
        try (Observation.Scope scope = observation.openScope()) {
            T result = action.get();
            observation.lowCardinalityKeyValue(LifecycleStep.OUTCOME_TAG, outcome.apply(result));
            return result;
        } catch (RuntimeException | Error e) {
            observation.lowCardinalityKeyValue(LifecycleStep.OUTCOME_TAG, LifecycleStep.ERROR);
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }
}
