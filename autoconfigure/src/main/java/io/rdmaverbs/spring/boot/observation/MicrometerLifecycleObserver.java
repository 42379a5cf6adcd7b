package io.rdmaverbs.spring.boot.observation;

import java.util.function.Function;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Makes each lifecycle step a Micrometer {@link Observation}: a timer and, with a tracing bridge, a span,
 * named and tagged by a {@link LifecycleObservationConvention}. A step that throws records the error on the
 * observation and ends with the outcome {@value LifecycleStep#ERROR}.
 */
public final class MicrometerLifecycleObserver implements LifecycleObserver {

    private final ObservationRegistry registry;
    private final @Nullable LifecycleObservationConvention convention;

    /**
     * @param convention replaces {@link DefaultLifecycleObservationConvention} when not {@code null}
     */
    public MicrometerLifecycleObserver(ObservationRegistry registry,
            @Nullable LifecycleObservationConvention convention) {
        this.registry = registry;
        this.convention = convention;
    }

    @Override
    public <T> T observe(LifecycleStep step, Supplier<T> action, Function<? super T, String> outcome) {
        LifecycleObservationContext context = new LifecycleObservationContext(step);
        Observation observation = Observation.createNotStarted(convention,
                DefaultLifecycleObservationConvention.INSTANCE, () -> context, registry);
        observation.start();
        try (Observation.Scope scope = observation.openScope()) {
            T result = action.get();
            context.outcome(outcome.apply(result));
            return result;
        } catch (RuntimeException | Error e) {
            context.outcome(LifecycleStep.ERROR);
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }
}
