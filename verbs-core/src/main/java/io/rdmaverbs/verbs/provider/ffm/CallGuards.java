package io.rdmaverbs.verbs.provider.ffm;

import java.util.ArrayList;
import java.util.List;

import io.rdmaverbs.verbs.provider.QueueLock;

import org.jspecify.annotations.Nullable;

/**
 * The {@link CallGuard}s on one CQ, QP, SRQ or address handle (one per buffer or request used with it),
 * its {@link QueueLock} if it has one (an extended CQ's batches, a QP's sessions), and whether its destroy
 * has shut them. A destroy {@link #quiesce quiesces} it before the destroy verb: no data-path call is then
 * in flight on it, no batch or session is open, and none can start, so the verb never frees an object native
 * code is using, from any thread. A destroy that fails {@link #resume resumes} it.
 */
final class CallGuards {

    /* Guarded by this: open and quiesce exclude each other, so a guard is either opened before the
     * shut-out (and shut by it) or refused. */
    private @Nullable List<CallGuard> open;
    private boolean shutOut;
    /** Set once, right after the object's create, before it is handed out. */
    private @Nullable QueueLock lock;

    /** {@code lock} is shut and reopened with these guards. */
    void add(QueueLock lock) {
        this.lock = lock;
    }

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

    /**
     * Shuts out new guards and shuts the open ones: returns once no call is in flight. The lock first, changing
     * nothing if the calling thread holds it (it would wait for itself); the calls of the batch or session are
     * the holder's, which the guards do not count.
     */
    void quiesce() {
        QueueLock l = lock;
        if (l != null) {
            l.shut();
        }
        List<CallGuard> shutting;
        synchronized (this) {
            shutOut = true;
            shutting = open == null ? List.of() : List.copyOf(open);
        }
        for (CallGuard g : shutting) {
            g.shutForDestroy();
        }
    }

    /**
     * Runs {@code destroy} (the object's destroy verb) once {@linkplain #quiesce quiesced}, and
     * {@linkplain #resume resumes} if it fails: no data-path call reaches the object from any thread while
     * the verb frees it, and a failed destroy leaves it usable.
     */
    void destroyQuiesced(Runnable destroy) {
        quiesce();
        try {
            destroy.run();
        } catch (RuntimeException e) {
            resume();
            throw e;
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
        QueueLock l = lock;
        if (l != null) {
            l.reopen();
        }
    }

    /**
     * The guard of a call on one CQ, QP or address handle that has no buffer or request of its own to keep one:
     * arming the CQ ({@code ibv_req_notify_cq}), {@code ibv_wr_set_ud_addr}'s use of an address handle. Opened
     * by the first such call, so biased to the thread that makes them (the completion thread, the poster); any
     * other thread takes its shared path. Entered and left by one provider method around one downcall, on one
     * thread, so that its exit takes the path its entry took and the owner's entry never nests: a batch or a
     * session, which spans the caller's calls, takes its object's {@link QueueLock} instead.
     */
    static final class Sole {

        private final NativeHandle target;
        private final CallGuards guards;
        private volatile @Nullable CallGuard guard;

        Sole(NativeHandle target, CallGuards guards) {
            this.target = target;
            this.guards = guards;
        }

        /** Enters for one call, or refuses as a destroyed handle is refused. */
        void enter() {
            CallGuard g = guard;
            if (g == null) {
                g = open();
            }
            if (!g.enter()) {
                throw refusal(target);
            }
        }

        /** Leaves the call {@link #enter} began, on the thread that entered, in the same method. */
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
