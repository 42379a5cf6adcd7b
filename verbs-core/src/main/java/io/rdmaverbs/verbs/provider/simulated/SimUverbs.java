package io.rdmaverbs.verbs.provider.simulated;

import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.Handle;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.WorkRequest;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

import org.jspecify.annotations.Nullable;

/**
 * The simulated {@code ib_uverbs} layer that every verb group of a {@link SimulatedProvider} goes
 * through: handle lookup (a handle must come from this provider, be of the kind the verb takes, still be
 * usable, and belong to the calling context) and the locks (one device's, or the whole fabric's).
 */
final class SimUverbs {

    final SimulatedProvider provider;
    final Fabric fabric;
    final FaultPlan faults = new FaultPlan();

    SimUverbs(SimulatedProvider provider, Fabric fabric) {
        this.provider = provider;
        this.fabric = fabric;
    }

    /**
     * Counts a call of {@code verb} on {@code target} in the {@link FaultPlan} and throws the failure it
     * planned for this call, if any. Called after the handle checks and before any lock is taken or
     * anything is changed, so an injected failure leaves everything as it was (a device-fatal one
     * excepted, which kills the device first, as {@link SimulatedProvider#injectDeviceFatal} does).
     */
    void call(String verb, SimHandle target) {
        call(verb, target.device, target.describe());
    }

    /** {@link #call(String, SimHandle)} for a verb on a device ({@code null}: on no device). */
    void call(String verb, @Nullable SimDevice device, String resource) {
        InjectedFault fault = faults.onCall(verb);
        if (fault == null) {
            return;
        }
        if (fault.deviceFatal() && device != null) {
            provider.injectDeviceFatal(device.name());
        }
        throw new VerbsException(verb, resource, fault.errno(), "injected by the simulated provider's fault plan"
                + (fault.deviceFatal() ? ", which made the device fatal" : "") + " (provider call " + fault.call() + ")");
    }

    /** Refuses (IllegalArgumentException) a handle this provider did not create, or of another kind. */
    <T extends SimHandle> T identify(Handle handle, Class<T> type) {
        Objects.requireNonNull(handle, "handle");
        if (!(handle instanceof SimHandle sim) || sim.provider != provider) {
            throw new IllegalArgumentException(handle.describe() + " was not created by this simulated provider");
        }
        if (!type.isInstance(handle)) {
            throw new IllegalArgumentException(handle.describe() + " is not a " + type.getSimpleName());
        }
        return type.cast(handle);
    }

    /** {@link #identify}, then refuses (IllegalStateException) a destroyed handle or one of a closed context. */
    <T extends SimHandle> T own(Handle handle, Class<T> type) {
        T sim = identify(handle, type);
        sim.requireUsable();
        return sim;
    }

    static void requireNotDestroyed(SimCq cq) {
        if (cq.isDestroyed()) {
            throw new IllegalStateException(cq.describe() + " was already destroyed");
        }
        if (cq.context().isDestroyed()) {
            throw new IllegalStateException(cq.describe() + " belongs to a closed context");
        }
    }

    SimRecvWr ownRequest(RecvWr request) {
        Objects.requireNonNull(request, "request");
        if (!(request instanceof SimRecvWr wr) || wr.provider != provider) {
            throw new IllegalArgumentException("receive requests must come from this provider's newRecvWr");
        }
        if (wr.isClosed()) {
            throw new IllegalStateException("this receive request was closed");
        }
        return wr;
    }

    SimSendWr ownRequest(SendWr request) {
        Objects.requireNonNull(request, "request");
        if (!(request instanceof SimSendWr wr) || wr.provider != provider) {
            throw new IllegalArgumentException("send requests must come from this provider's newSendWr");
        }
        if (wr.isClosed()) {
            throw new IllegalStateException("this send request was closed");
        }
        return wr;
    }

    /** A chain this provider made, of {@code kind} slots, still open and not empty. */
    @SuppressWarnings("unchecked")
    <W extends WorkRequest> SimWrChain<W> ownChain(WorkRequestChain<W> chain, Class<? extends SimWorkRequest> kind) {
        Objects.requireNonNull(chain, "chain");
        if (!(chain instanceof SimWrChain<?> c) || c.provider != provider || !kind.isInstance(c.slot(0))) {
            throw new IllegalArgumentException("chains must come from this provider's new"
                    + (kind == SimSendWr.class ? "SendChain" : "RecvChain"));
        }
        if (c.isClosed()) {
            throw new IllegalStateException("this chain was closed");
        }
        if (c.length() == 0) {
            throw new IllegalArgumentException("the chain is empty: nothing to post");
        }
        return (SimWrChain<W>) c;
    }

    static void requirePort(String verb, SimContext ctx, int port) {
        if (!ctx.device.hasPort(port)) {
            throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "port " + port + " does not exist on "
                    + ctx.device.name() + " (ports 1.." + ctx.device.profile.ports().size() + ")");
        }
    }

    /** The kernel looks handles up among the calling context's objects: another context's is not found. */
    static void sameContext(String verb, SimContext ctx, SimHandle handle) {
        if (handle.context() != ctx) {
            throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, handle.describe()
                    + " belongs to " + handle.context().describe() + ", not to this context");
        }
    }

    /** Up to five users of an object among its context's objects, for an actionable EBUSY message. */
    static String users(SimContext ctx, Predicate<SimHandle> uses) {
        List<String> found = ctx.children().stream().filter(uses).map(SimHandle::describe).toList();
        if (found.isEmpty()) {
            return "(objects of other or closed contexts)";
        }
        return found.size() <= 5 ? String.join(", ", found)
                : String.join(", ", found.subList(0, 5)) + " and " + (found.size() - 5) + " more";
    }

    static <T> T locked(SimDevice d, Supplier<T> action) {
        d.lock.lock();
        try {
            return action.get();
        } finally {
            d.lock.unlock();
        }
    }

    static void locked(SimDevice d, Runnable action) {
        d.lock.lock();
        try {
            action.run();
        } finally {
            d.lock.unlock();
        }
    }

    <T> T onFabric(Supplier<T> action) {
        fabric.lockAll();
        try {
            return action.get();
        } finally {
            fabric.unlockAll();
        }
    }

    void onFabric(Runnable action) {
        fabric.lockAll();
        try {
            action.run();
        } finally {
            fabric.unlockAll();
        }
    }
}
