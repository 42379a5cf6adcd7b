package io.rdmaverbs.verbs.provider;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The lock a provider holds across calls: an extended CQ's from {@code ibv_start_poll} to
 * {@code ibv_end_poll} (a <em>batch</em>), a QP's send queue's from {@code ibv_wr_start} to
 * {@code ibv_wr_complete} or {@code ibv_wr_abort} (a <em>session</em>). rdma-core's rxe, mlx5, mlx4, efa,
 * hns and irdma take a spinlock at the start and release it at the end ({@code ibv_create_cq_ex(3)},
 * {@code ibv_wr_post(3)}), so it is held while the caller's Java code runs in between. Both providers take
 * this lock first, and it keeps the misuse that would hang or corrupt the provider's out of native code:
 *
 * <ul>
 * <li>One thread holds it, from the start that {@linkplain #take took} it to the end that
 *     {@linkplain #release released} it. Another thread's start waits here, in Java, parked: never spinning
 *     inside the provider, where a thread that does not reach a safepoint would stall every other thread's
 *     (a {@code critical} downcall is not stopped for one).</li>
 * <li>A second start on the holding thread is refused: the provider's spinlock does not nest, and the
 *     thread would spin on itself forever. So is any other verb that takes the same lock
 *     ({@link #refuseHeldByCaller}), and a destroy of the object from inside the batch or session.</li>
 * <li>The calls between start and end, and the end, are the holder's only ({@link #requireHeld}): on any
 *     other thread they are refused with a {@link WrongThreadException}, before native code, naming both
 *     threads. A batch or session is confined to its thread, not handed over (rather than tracked so that any
 *     thread could end it) because the lock it stands for is: {@code pthread_spin_unlock(3p)} by a thread that
 *     does not hold the lock is undefined.</li>
 * <li>A destroy {@linkplain #shut shuts} it: no start succeeds from then on, and the destroy waits for the
 *     holder's end; {@link #reopen} undoes it when the destroy verb fails.</li>
 * </ul>
 *
 * <p>Why it is correct: a start does a compare-and-set of the holder, then a volatile load of the shut bits; a
 * destroy does an atomic OR of the shut bits, then volatile loads of the holder. Volatile accesses are totally
 * ordered, so of a start's set and a destroy's OR one comes first: either the start sees the shut and lets go
 * before native code, or the destroy sees the holder and waits until it reads the end's release store. No
 * method is called between a start's set of the holder and its return, so nothing can throw there.
 */
public final class QueueLock {

    /** What the lock stands for, in the words of the messages. */
    public enum Kind {
        /** An extended CQ's, from {@code ibv_start_poll} to {@code ibv_end_poll}. */
        BATCH("batch", "poller of the CQ", "ibv_start_poll", "the CQ's lock"),
        /** A QP's send queue's, from {@code ibv_wr_start} to {@code ibv_wr_complete} or {@code ibv_wr_abort}. */
        SESSION("session", "builder of the QP", "ibv_wr_start", "the send queue's lock");

        private final String noun;
        private final String user;
        private final String start;
        private final String lock;

        Kind(String noun, String user, String start, String lock) {
            this.noun = noun;
            this.user = user;
            this.start = start;
            this.lock = lock;
        }
    }

    /** The object's destroy has begun (and, if it succeeded, ended): cleared by {@link #reopen} if it failed. */
    private static final int DESTROYING = 1;
    private static final int SPINS_BEFORE_PARKING = 1_000;
    private static final long PARK_NANOS = 20_000;
    private static final VarHandle HOLDER;
    private static final VarHandle SHUT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HOLDER = lookup.findVarHandle(QueueLock.class, "holder", Thread.class);
            SHUT = lookup.findVarHandle(QueueLock.class, "shut", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Handle target;
    private final Kind kind;
    private volatile @Nullable Thread holder;
    private volatile int shut;

    /**
     * The lock of {@code target}'s batches or sessions.
     *
     * @param target the CQ or QP, as its messages name it
     */
    public QueueLock(Handle target, Kind kind) {
        this.target = target;
        this.kind = kind;
    }

    /**
     * Takes the lock for the calling thread, waiting (parked) while another thread holds it.
     *
     * @param verb the verb about to take the provider's lock, for the refusals
     * @return true when taken; false, holding nothing, once a destroy has begun
     * @throws IllegalStateException when the calling thread holds it already, or was interrupted while waiting
     */
    public boolean take(String verb) {
        Thread me = Thread.currentThread();
        for (int spins = 0;; spins++) {
            // Read before the set too, so that a start refused after a shut never holds the destroy up.
            if (shut != 0) {
                return false;
            }
            Thread h = holder;
            if (h == null) {
                if (HOLDER.compareAndSet(this, null, me)) {
                    if (shut == 0) {
                        return true;
                    }
                    HOLDER.setRelease(this, null);
                    return false;
                }
            } else if (h == me) {
                throw nested(verb);
            } else {
                awaitTurn(h, verb, spins);
            }
        }
    }

    /** Lets go of the lock taken by {@link #take}; by its holder, once the provider's end returned. */
    public void release() {
        HOLDER.setRelease(this, null);
    }

    /**
     * Refuses {@code call} (a call inside the batch or session, or its end) unless the calling thread holds the
     * lock, before it reaches native code.
     *
     * @throws WrongThreadException when another thread holds it
     * @throws IllegalStateException when no thread does
     */
    public void requireHeld(String call) {
        Thread h = holder;
        if (h != Thread.currentThread()) {
            throw notHeld(call, h);
        }
    }

    /**
     * Refuses {@code verb}, another verb that takes the provider's lock for its own call, on the thread that
     * holds it: the thread would spin on itself.
     */
    public void refuseHeldByCaller(String verb) {
        if (holder == Thread.currentThread()) {
            throw new IllegalStateException(target.describe() + ": " + verb + " inside this thread's own " + kind.noun
                    + " would wait forever for " + kind.lock + " the " + kind.noun + " holds: end the " + kind.noun
                    + " first");
        }
    }

    /** Whether the calling thread holds the lock. */
    public boolean isHeldByCaller() {
        return holder == Thread.currentThread();
    }

    /**
     * The destroy of the object begins: no {@link #take} succeeds from now on, and this returns once the holder,
     * if any, has released the lock.
     *
     * @throws IllegalStateException changing nothing, on the holding thread itself, or when the holder ended
     *     without releasing it
     */
    public void shut() {
        Thread me = Thread.currentThread();
        if (holder == me) {
            throw new IllegalStateException(target.describe() + ": destroying it inside this thread's own "
                    + kind.noun + " would wait forever for that " + kind.noun + " to end: end the " + kind.noun
                    + " first");
        }
        SHUT.getAndBitwiseOr(this, DESTROYING);
        for (int spins = 0;; spins++) {
            Thread h = holder;
            if (h == null) {
                return;
            }
            if (abandonedBy(h)) {
                reopen();
                throw abandoned(h);
            }
            pause(spins);
        }
    }

    /**
     * Whether {@code seen}, read as the holder, ended holding the lock. Not merely dead: it may have released the
     * lock after that read and then ended (its last start refused by this very shut), so the holder is read again
     * once its end is known, which happens-after everything it did (JLS 17.4.4: {@code isAlive()} returning false
     * synchronizes with the thread's last action).
     */
    boolean abandonedBy(Thread seen) {
        return !seen.isAlive() && holder == seen;
    }

    /** The destroy verb failed: the object lives on and starts succeed again. */
    public void reopen() {
        SHUT.getAndBitwiseAnd(this, ~DESTROYING);
    }

    /**
     * Runs {@code destroy} (the destroy verb of {@code lock}'s object) once {@code lock} is {@linkplain #shut
     * shut}, and {@linkplain #reopen reopens} it if the destroy fails.
     *
     * @param lock the object's lock, or null for an object without batches or sessions
     */
    public static void shutFor(@Nullable QueueLock lock, Runnable destroy) {
        if (lock == null) {
            destroy.run();
            return;
        }
        lock.shut();
        boolean destroyed = false;
        try {
            destroy.run();
            destroyed = true;
        } finally {
            if (!destroyed) {
                lock.reopen();
            }
        }
    }

    /**
     * Runs {@code call}, a verb that takes the provider's lock for its own call ({@code poll_cq} on rxe's
     * extended CQ, {@code post_send} on its QP with send ops), as the provider would: refused on the holding
     * thread, after another thread's batch or session once it has ended.
     *
     * @param lock the object's lock, or null for an object without batches or sessions
     */
    public static <T> T takenFor(@Nullable QueueLock lock, String verb, Supplier<T> call) {
        if (lock == null) {
            return call.get();
        }
        lock.refuseHeldByCaller(verb);
        // Not taken once shut: the call then meets the destroy in the provider's own checks.
        boolean taken = lock.take(verb);
        try {
            return call.get();
        } finally {
            if (taken) {
                lock.release();
            }
        }
    }

    private void awaitTurn(Thread h, String verb, int spins) {
        if (abandonedBy(h)) {
            throw abandoned(h);
        }
        if (Thread.currentThread().isInterrupted()) {
            throw new IllegalStateException(target.describe() + ": interrupted while " + verb + " waited for thread \""
                    + h.getName() + "\"'s " + kind.noun + " to end (the interrupt status is kept)");
        }
        pause(spins);
    }

    private static void pause(int spins) {
        if (spins < SPINS_BEFORE_PARKING) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(PARK_NANOS);
        }
    }

    private IllegalStateException nested(String verb) {
        return new IllegalStateException(target.describe() + ": " + verb + " inside this thread's own " + kind.noun
                + (verb.equals(kind.start) ? " (a second " + kind.user + ", or a start without an end)" : "") + ": "
                + kind.lock + " does not nest, so it would spin forever; end the " + kind.noun + " first");
    }

    private RuntimeException notHeld(String call, @Nullable Thread h) {
        if (h == null) {
            return new IllegalStateException(target.describe() + ": " + call + " outside a " + kind.noun + ": "
                    + kind.start + " first");
        }
        return new WrongThreadException(target.describe() + ": " + call + " on thread \""
                + Thread.currentThread().getName() + "\", but the " + kind.noun + " is held by thread \"" + h.getName()
                + "\": a " + kind.noun + " stays on the thread that began it (" + kind.start + " took " + kind.lock
                + " for that thread)");
    }

    private IllegalStateException abandoned(Thread h) {
        return new IllegalStateException(target.describe() + ": thread \"" + h.getName() + "\" ended inside its "
                + kind.noun + ", so " + kind.lock + " stays held for good (end every " + kind.noun + " in a finally)");
    }

    @Override
    public String toString() {
        Thread h = holder;
        return kind.noun + " lock of " + target.describe() + (h == null ? "" : " held by " + h.getName())
                + (shut != 0 ? " (shut)" : "");
    }
}
