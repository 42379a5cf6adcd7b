package io.rdmaverbs.verbs.provider.ffm;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * The {@link CallSession}s of one completion buffer or work request: one per CQ or QP it is used with,
 * each with the views its calls pass, so that a buffer polling a send CQ and a receive CQ in turn
 * switches sessions without a lock, an allocation, or a new session (making one and draining one costs
 * microseconds: a shared arena's close synchronizes with every thread). The data path only
 * {@linkplain #find finds}; the owner adds and retires under its monitor, replacing the array, which a
 * caller without the lock reads whole (it is volatile, and never changed once published).
 *
 * @param <B> the owner's record of one session and its views
 */
final class CallBindings<B extends CallBindings.Binding> {

    /** One session and the segments a call passes in it. */
    interface Binding {
        CallSession session();
    }

    private static final Binding[] NONE = {};

    private volatile Binding[] bindings = NONE;

    /** The open binding on {@code target}, or null: the caller binds one under its monitor. */
    @SuppressWarnings("unchecked")
    @Nullable B find(NativeHandle target) {
        for (Binding b : bindings) {
            CallSession s = b.session();
            if (s.target() == target && !s.isDraining()) {
                return (B) b;
            }
        }
        return null;
    }

    /** Adds a binding on a new session, dropping those a destroy drained. Under the owner's monitor. */
    void add(B binding) {
        Binding[] open = Arrays.stream(bindings).filter(b -> !b.session().isDraining()).toArray(Binding[]::new);
        Binding[] grown = Arrays.copyOf(open, open.length + 1);
        grown[open.length] = binding;
        bindings = grown;
    }

    /**
     * Drains every session, waiting for calls in flight on any thread, before the owner frees its memory.
     * Under the owner's monitor.
     */
    void retireAll() {
        Binding[] all = bindings;
        bindings = NONE;
        for (Binding b : all) {
            b.session().retire();
        }
    }
}
