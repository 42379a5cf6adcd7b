package io.rdmaverbs.verbs.provider.ffm;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * The {@link CallGuard}s of one completion buffer or work request: one per CQ or QP it is used with,
 * each with the addresses its calls pass, so that a buffer polling a send CQ and a receive CQ in turn
 * switches guards without a lock or an allocation. The data path only
 * {@linkplain #find finds}; the owner adds and retires under its monitor, replacing the array, which a
 * caller without the lock reads whole (it is volatile, and never changed once published).
 *
 * @param <B> the owner's record of one guard and the addresses its calls pass
 */
final class CallBindings<B extends CallBindings.Binding> {

    /** One guard and the addresses a call under it passes. */
    interface Binding {
        CallGuard guard();
    }

    private static final Binding[] NONE = {};

    private volatile Binding[] bindings = NONE;
    /*
     * The binding found last, tried first: a buffer or request is used with one CQ or QP at a time, and the
     * data path then reads this one field instead of the array and its element. Read and written without
     * order (a racing caller's find may overwrite it): a binding is immutable and the only one on its target
     * until retireAll, whose retired guard refuses every call, so a stale hint can name nothing else.
     */
    private @Nullable Binding last;

    /** The binding on {@code target}, or null: the caller binds one under its monitor. */
    @SuppressWarnings("unchecked")
    @Nullable B find(NativeHandle target) {
        Binding hint = last;
        if (hint != null && hint.guard().target() == target) {
            return (B) hint;
        }
        for (Binding b : bindings) {
            if (b.guard().target() == target) {
                last = b;
                return (B) b;
            }
        }
        return null;
    }

    /** Adds a binding. Under the owner's monitor. */
    void add(B binding) {
        Binding[] grown = Arrays.copyOf(bindings, bindings.length + 1);
        grown[grown.length - 1] = binding;
        bindings = grown;
    }

    /**
     * Retires every guard, waiting for calls in flight on any thread, before the owner frees its memory.
     * Under the owner's monitor.
     */
    void retireAll() {
        Binding[] all = bindings;
        bindings = NONE;
        last = null;
        for (Binding b : all) {
            b.guard().retire();
        }
    }
}
