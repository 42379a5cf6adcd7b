package io.rdmaverbs.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * The lifetime of one resource as a single state word, apart from what it guards (as the JDK's
 * {@code SharedSession} keeps acquire, release and close apart from the memory): two bits, CLOSING and
 * CLOSED, and the number of operations in flight.
 *
 * <p>Invariants:
 * <ul>
 * <li>An {@link #tryEnter() enter} succeeds only while neither bit is set; every successful enter is
 *     matched by one {@link #exit()}, so the count is the number of operations inside the resource.</li>
 * <li>The bits change only under this guard's monitor, held by the one thread closing the resource
 *     from {@link #beginClosing} to {@link #endClosing} or {@link #markClosed}.</li>
 * <li>Once {@link #beginClosing} has returned 0, nothing is in flight and nothing can enter: the
 *     closing thread alone may call the release verb.</li>
 * <li>CLOSED is final. It is set after a drain; or without one for a resource made defunct, whose
 *     native object went with its parent's release (new operations are refused from then on).</li>
 * </ul>
 * Enter and exit are lock-free and allocate nothing; only a close blocks (its drain is bounded). The
 * monitor doubles as the resource's close lock, so a resource carries one small object for both.
 */
final class LifetimeGuard {

    private static final int CLOSING = 1 << 29;
    private static final int CLOSED = 1 << 30;
    private static final int IN_FLIGHT = CLOSING - 1;
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(LifetimeGuard.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile int state;
    /** Why the resource ended, when it was not by a plain release (it became defunct, or its close said why). */
    private volatile @Nullable String closedBecause;

    /** Enters for one operation; false, changing nothing, once a close has begun or the count is full. */
    boolean tryEnter() {
        for (;;) {
            int s = state;
            if ((s & (CLOSING | CLOSED)) != 0 || (s & IN_FLIGHT) == IN_FLIGHT) {
                return false;
            }
            if (STATE.weakCompareAndSet(this, s, s + 1)) {
                return true;
            }
        }
    }

    void exit() {
        STATE.getAndAdd(this, -1);
    }

    boolean isOpen() {
        return (state & (CLOSING | CLOSED)) == 0;
    }

    boolean isClosing() {
        return (state & CLOSING) != 0;
    }

    boolean isClosed() {
        return (state & CLOSED) != 0;
    }

    int inFlight() {
        return state & IN_FLIGHT;
    }

    @Nullable String closedBecause() {
        return closedBecause;
    }

    /**
     * Shuts out new entries, runs {@code wakeWaiters} (the operations blocked in the provider leave with
     * a closed resource once woken) and waits, up to 10 s, for those in flight to exit.
     *
     * @return 0 when drained (the caller must end with {@link #endClosing} or {@link #markClosed}); else
     *     the number still in flight, and the close has been ended again
     */
    int beginClosing(Runnable wakeWaiters) {
        STATE.getAndBitwiseOr(this, CLOSING);
        wakeWaiters.run();
        long deadline = System.nanoTime() + DRAIN_TIMEOUT_NANOS;
        for (int spins = 0; inFlight() != 0; spins++) {
            if (System.nanoTime() > deadline) {
                int n = inFlight();
                endClosing();
                return n;
            }
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(200_000);
            }
        }
        return 0;
    }

    /**
     * Gives the close under way its reason before it completes, so that an entry it refuses meanwhile is told
     * why too; null takes it back (the close did not happen).
     */
    void closingBecause(@Nullable String because) {
        closedBecause = because;
    }

    /** The close did not happen: entries succeed again. */
    void endClosing() {
        STATE.getAndBitwiseAnd(this, ~CLOSING);
    }

    /** The native object is gone: by its release verb ({@code because} null), or with its parent. */
    void markClosed(@Nullable String because) {
        closedBecause = because;
        int s;
        do {
            s = state;
        } while (!STATE.weakCompareAndSet(this, s, (s & ~CLOSING) | CLOSED));
    }
}
