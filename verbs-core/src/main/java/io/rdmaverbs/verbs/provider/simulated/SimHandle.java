package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.provider.Handle;

/**
 * What every simulated handle has: the provider that made it (so foreign handles are refused), its
 * device and context, and whether it was destroyed. Destroyed is set only when the destroy verb
 * succeeded, so a refused destroy can be retried.
 */
abstract sealed class SimHandle implements Handle
        permits SimContext, SimPd, SimXrcd, SimCompChannel, SimCq, SimSrq, SimQp, SimMr, SimAh {

    final SimulatedProvider provider;
    final SimDevice device;
    final KernelObjectKind kind;
    final long id;
    private volatile boolean destroyed;

    SimHandle(SimulatedProvider provider, SimDevice device, KernelObjectKind kind, long id) {
        this.provider = provider;
        this.device = device;
        this.kind = kind;
        this.id = id;
    }

    /** The context the object was created in (a context is its own). */
    abstract SimContext context();

    final boolean isDestroyed() {
        return destroyed;
    }

    final void markDestroyed() {
        destroyed = true;
    }

    /** Refuses a destroyed object, and one whose context was closed (its memory is gone in C). */
    void requireUsable() {
        if (destroyed) {
            throw new IllegalStateException(describe() + " was already destroyed");
        }
        SimContext context = context();
        if (context != this && context.isDestroyed()) {
            throw new IllegalStateException(describe() + " belongs to " + context.describe()
                    + ", which was closed: ibv_close_device leaves it leaked and unusable");
        }
    }

    @Override
    public String describe() {
        return "sim:" + kind.verbsName() + "#" + id + " on " + device.name();
    }

    @Override
    public final String toString() {
        return describe();
    }
}
