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

    /** Why a call or a new guard on {@code target} is refused while it is being or has been destroyed. */
    static IllegalStateException refusal(NativeHandle target) {
        return new IllegalStateException(target.describe()
                + (target.isDestroyed() ? " was already destroyed" : " is being destroyed"));
    }
}
