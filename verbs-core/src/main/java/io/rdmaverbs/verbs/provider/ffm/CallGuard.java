package io.rdmaverbs.verbs.provider.ffm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The guard of the data-path calls of one completion buffer on one CQ, or of one work request on one
 * QP: the only guard such a call pays. The downcall passes bare addresses (no memory session for the
 * linker to acquire and release), so this guard alone keeps the CQ or QP from being destroyed, and the
 * buffer or request from being freed, while native code runs: a destroy of the CQ or QP and a close of
 * the buffer or request {@link #shut shut} it first, which waits for the calls in flight and refuses
 * later ones.
 *
 * <p>Biased to its owner, the thread that made it (a buffer or request is one per polling or posting
 * thread by contract). The owner enters with a volatile store of {@code ownerInCall} followed by a
 * volatile load of {@code shut}; a closer does a volatile read-modify-write of {@code shut} followed by
 * volatile loads of {@code ownerInCall}. Volatile accesses are totally ordered (the synchronization
 * order, consistent with each thread's program order), so of an owner's entry and a closer's shut, one
 * comes first: either the owner sees the shut and backs out, or the closer sees the owner in the call
 * and waits until it reads the owner's exit (a release store, so everything the call did happens
 * before the closer goes on to free). No read-modify-write on the owner's path: on x86 the volatile
 * store is a store and a full fence, about half of what an acquire and release of a shared arena cost
 * (two compare-and-sets). Any other thread takes the shared path, a counted entry with the same
 * handshake, so a buffer or request shared across threads against its contract is slower, never unsafe.
 *
 * <p>Each {@link #enter} and its {@link #exit} are made by one provider method around one downcall, on one
 * thread: {@link #exit} takes the path its entry took because it runs on the same thread, and the owner's
 * entry never nests because no call under the guard calls back. Nothing that spans the caller's own calls
 * (an extended CQ's batch, a session of the new post API) uses a guard: those take their object's
 * {@link io.rdmaverbs.verbs.provider.QueueLock}, which confines them to one thread (issue 20: a batch ended
 * on another thread, or nested, made a guard's exit take the wrong path).
 */
final class CallGuard {

    /** The CQ or QP is being destroyed: reopened if the destroy verb fails. */
    private static final int DESTROYING = 1;
    /** The buffer or request is closed: final. */
    private static final int RETIRED = 2;
    private static final VarHandle SHUT;
    private static final VarHandle OWNER_IN_CALL;
    private static final VarHandle OTHERS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            SHUT = lookup.findVarHandle(CallGuard.class, "shut", int.class);
            OWNER_IN_CALL = lookup.findVarHandle(CallGuard.class, "ownerInCall", boolean.class);
            OTHERS = lookup.findVarHandle(CallGuard.class, "others", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final NativeHandle target;
    private final CallGuards registry;
    private final Thread owner = Thread.currentThread();
    private volatile int shut;
    private volatile boolean ownerInCall;
    /** Calls in flight from threads other than the owner. */
    private volatile int others;

    CallGuard(NativeHandle target, CallGuards registry) {
        this.target = target;
        this.registry = registry;
    }

    /** The CQ or QP the calls go to. */
    NativeHandle target() {
        return target;
    }

    /** Enters for one call; false, changing nothing, once shut. Every true is paired with {@link #exit}. */
    boolean enter() {
        if (Thread.currentThread() != owner) {
            return enterShared();
        }
        ownerInCall = true;
        if (shut == 0) {
            return true;
        }
        OWNER_IN_CALL.setRelease(this, false);
        return false;
    }

    void exit() {
        if (Thread.currentThread() == owner) {
            OWNER_IN_CALL.setRelease(this, false);
        } else {
            OTHERS.getAndAdd(this, -1);
        }
    }

    private boolean enterShared() {
        for (;;) {
            int n = others;
            // Checked before counting, so that calls refused after a shut never hold the count up (the
            // wait stays bounded); and after, for the handshake with shut's read of the count.
            if (shut != 0) {
                return false;
            }
            if (OTHERS.compareAndSet(this, n, n + 1)) {
                break;
            }
        }
        if (shut != 0) {
            OTHERS.getAndAdd(this, -1);
            return false;
        }
        return true;
    }

    /** Whether the buffer or request closed (else a refusal is the CQ's or QP's destroy). */
    boolean isRetired() {
        return (shut & RETIRED) != 0;
    }

    /** Shuts out new calls for a destroy of the target and waits for those in flight. */
    void shutForDestroy() {
        shut(DESTROYING);
    }

    /** The destroy verb failed: calls are admitted again, unless the buffer or request closed meanwhile. */
    void reopen() {
        SHUT.getAndBitwiseAnd(this, ~DESTROYING);
    }

    /** Shuts out calls for good (the buffer or request is closing) and waits for those in flight. */
    void retire() {
        shut(RETIRED);
        registry.forget(this);
    }

    /*
     * Bounded and starvation-free: once the bit is set, no call enters (the owner and the shared path both
     * read shut after announcing themselves), so the wait is for the calls already in: at most the owner's
     * and one per other thread, each one downcall that waits for no lock held across Java code.
     */
    private void shut(int bit) {
        SHUT.getAndBitwiseOr(this, bit);
        for (int spins = 0; ownerInCall || others != 0; spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    @Override
    public String toString() {
        return "call guard on " + target.describe() + " owned by " + owner.getName() + (shut != 0 ? " (shut)" : "");
    }
}
