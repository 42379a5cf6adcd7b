package io.rdmaverbs.verbs.provider.ffm;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The {@link CallGuard}s on one CQ or QP (one per buffer or request used with it), and whether its
 * destroy has shut them. A destroy {@link #quiesce quiesces} it before the destroy verb: no data-path
 * call is then in flight on it and none can start, so the verb never frees an object native code is
 * using, from any thread. A destroy that fails {@link #resume resumes} it.
 */
final class CallGuards {

    /* Guarded by this: open and quiesce exclude each other, so a guard is either opened before the
     * shut-out (and shut by it) or refused. */
    private @Nullable List<CallGuard> open;
    private boolean shutOut;

    /**
     * A new guard on {@code target} (the CQ or QP these are the guards of), owned by the calling thread;
     * refused, as a call on a destroyed handle is, once its destroy has begun.
     */
    synchronized CallGuard open(NativeHandle target) {
        if (shutOut || target.isDestroyed()) {
            throw refusal(target);
        }
        CallGuard guard = new CallGuard(target, this);
        if (open == null) {
            // Most CQs and QPs of a large graph are never polled or posted to from Java: no list for them.
            open = new ArrayList<>(2);
        }
        open.add(guard);
        return guard;
    }

    /** A guard its buffer or request retired, closing. */
    synchronized void forget(CallGuard guard) {
        if (open != null) {
            open.remove(guard);
        }
    }

    /** Shuts out new guards and shuts the open ones: returns once no call is in flight. */
    void quiesce() {
        List<CallGuard> shutting;
        synchronized (this) {
            shutOut = true;
            shutting = open == null ? List.of() : List.copyOf(open);
        }
        for (CallGuard g : shutting) {
            g.shutForDestroy();
        }
    }

    /** The destroy failed: the object lives on, and its guards admit calls again. */
    void resume() {
        List<CallGuard> reopening;
        synchronized (this) {
            shutOut = false;
            reopening = open == null ? List.of() : List.copyOf(open);
        }
        for (CallGuard g : reopening) {
            g.reopen();
        }
    }

    /**
     * The guard of the calls on one CQ or QP that have no buffer or request of their own to keep one:
     * arming the CQ ({@code ibv_req_notify_cq}), an extended CQ's batch ({@code ibv_start_poll} to
     * {@code ibv_end_poll}), a {@code ibv_qp_ex} session ({@code ibv_wr_start} to {@code ibv_wr_complete}).
     * Opened by the first such call, so biased to the thread that makes them (the completion thread, the
     * poster); any other thread takes its shared path. One per kind of call: the owner's entry does not
     * nest, and a batch may be open while its thread arms the same CQ.
     */
    static final class Sole {

        private final NativeHandle target;
        private final CallGuards guards;
        private volatile @Nullable CallGuard guard;

        Sole(NativeHandle target, CallGuards guards) {
            this.target = target;
            this.guards = guards;
        }

        /** Enters for one call (or one batch or session), or refuses as a destroyed handle is refused. */
        void enter() {
            CallGuard g = guard;
            if (g == null) {
                g = open();
            }
            if (!g.enter()) {
                throw refusal(target);
            }
        }

        /** Leaves the call (or the batch or session) an {@link #enter} began, on the thread that entered. */
        void exit() {
            CallGuard g = guard;
            if (g != null) {
                g.exit();
            }
        }

        private synchronized CallGuard open() {
            CallGuard g = guard;
            if (g == null) {
                g = guards.open(target);
                guard = g;
            }
            return g;
        }
    }

    /** Why a call or a new guard on {@code target} is refused while it is being or has been destroyed. */
    static IllegalStateException refusal(NativeHandle target) {
        return new IllegalStateException(target.describe()
                + (target.isDestroyed() ? " was already destroyed" : " is being destroyed"));
    }
}
