package io.rdmaverbs.verbs.provider.ffm;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The {@link CallSession}s open on one CQ or QP, and whether its destroy has shut them out. A destroy
 * {@link #quiesce quiesces} it before the destroy verb: no data-path call is then in flight on it and
 * none can start, so the verb never frees an object native code is using, from any thread. A destroy
 * that fails {@link #resume resumes} it; the buffers and requests then bind new sessions.
 */
final class CallSessions {

    /* Guarded by this: open and quiesce exclude each other, so a session is either opened before the
     * shut-out (and drained by it) or refused. */
    private @Nullable List<CallSession> open;
    private boolean shutOut;

    /**
     * A new session on {@code target} (the CQ or QP these are the sessions of); refused, as a call on a
     * destroyed handle is, once its destroy has begun.
     */
    synchronized CallSession open(NativeHandle target) {
        if (shutOut || target.isDestroyed()) {
            throw new IllegalStateException(target.describe()
                    + (target.isDestroyed() ? " was already destroyed" : " is being destroyed"));
        }
        CallSession session = new CallSession(target, this);
        if (open == null) {
            // Most CQs and QPs of a large graph are never polled or posted to from Java: no list for them.
            open = new ArrayList<>(2);
        }
        open.add(session);
        return session;
    }

    /** A session its buffer or request retired, closing. */
    synchronized void forget(CallSession session) {
        if (open != null) {
            open.remove(session);
        }
    }

    /** Shuts out new sessions and drains the open ones: returns once no call is in flight. */
    void quiesce() {
        List<CallSession> draining;
        synchronized (this) {
            shutOut = true;
            draining = open == null ? List.of() : List.copyOf(open);
            open = null;
        }
        for (CallSession s : draining) {
            s.drain();
        }
    }

    /** The destroy failed: the object lives on and admits sessions again. */
    synchronized void resume() {
        shutOut = false;
    }
}
