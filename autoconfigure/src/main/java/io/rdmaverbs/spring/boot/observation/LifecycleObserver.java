package io.rdmaverbs.spring.boot.observation;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Observes a lifecycle step of the resource graph (a device open, the teardown) while it runs. The hook
 * the library types call; {@link #NONE} unless Micrometer's Observation API is configured. Not a functional
 * interface: its method is generic, so an implementation is a class.
 */
public interface LifecycleObserver {

    /** Runs every step unobserved. */
    LifecycleObserver NONE = new LifecycleObserver() {
        @Override
        public <T> T observe(LifecycleStep step, Supplier<T> action, Function<? super T, String> outcome) {
            return action.get();
        }
    };

    /**
     * Runs {@code action} as {@code step}, and returns what it returns or throws what it throws.
     *
     * @param outcome the {@link LifecycleStep#OUTCOME_TAG} value of what {@code action} returned
     */
    <T> T observe(LifecycleStep step, Supplier<T> action, Function<? super T, String> outcome);
}
