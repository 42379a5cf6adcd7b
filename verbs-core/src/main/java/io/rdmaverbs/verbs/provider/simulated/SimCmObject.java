package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.provider.Handle;

/**
 * What every simulated CM handle has: the provider (the host) that made it, so foreign handles are
 * refused, and whether it is gone. CM objects belong to no device context (an event channel is a
 * descriptor of {@code /dev/infiniband/rdma_cm}), so they are not {@link SimHandle}s. Guarded by the
 * {@link SimulatedNetwork}'s lock.
 */
abstract sealed class SimCmObject implements Handle permits SimCmChannel, SimCmId, SimCmEvent {

    final SimulatedProvider provider;
    final long serial;
    /** Why the object is gone, or {@code null} while it is alive. */
    private volatile String gone;

    SimCmObject(SimulatedProvider provider, long serial) {
        this.provider = provider;
        this.serial = serial;
    }

    final boolean isGone() {
        return gone != null;
    }

    /** Marks the object gone; only when its destroy succeeded (or the kernel destroyed it), so a refusal can be retried. */
    final void markGone(String why) {
        gone = why;
    }

    void requireUsable() {
        String why = gone;
        if (why != null) {
            throw new IllegalStateException(describe() + " " + why);
        }
    }

    @Override
    public final String toString() {
        return describe();
    }
}
