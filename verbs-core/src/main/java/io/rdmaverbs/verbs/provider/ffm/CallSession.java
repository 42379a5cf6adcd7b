package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * The guard of the data-path calls of one completion buffer on one CQ, or of one work request on one
 * QP: a shared arena that owns no memory, in which every segment such a call passes (the CQ or QP
 * pointer, the buffer, the request, its {@code bad_wr} and errno slots) is a view. The linker acquires
 * the session of each segment it passes and releases it when the call returns, once per distinct
 * session; with all of them in this one, a call pays one acquire and one release, and that pair is its
 * only guard: it keeps the CQ or QP from being destroyed and the buffer or request from being freed
 * while native code runs.
 *
 * <p>{@link #drain} closes the session, which the JDK allows only while no call holds it; every later
 * call fails in the linker, before native code, with {@link IllegalStateException}. A destroy of the CQ
 * or QP drains its sessions before the destroy verb ({@link CallSessions#quiesce}), and a buffer or
 * request drains its own before its memory is freed. The memory itself stays with its owner, so a
 * drained session costs nothing but a new one at the next call (after a destroy that failed, say).
 */
final class CallSession {

    private final Arena arena = Arena.ofShared();
    private final NativeHandle target;
    private final CallSessions registry;
    /*
     * Set before the first attempt to close: a call that reads it set takes no new acquire, so the close
     * waits at most for the calls that read it clear, one per calling thread (see drain).
     */
    private volatile boolean draining;

    CallSession(NativeHandle target, CallSessions registry) {
        this.target = target;
        this.registry = registry;
    }

    /** The CQ or QP the calls go to. */
    NativeHandle target() {
        return target;
    }

    /** {@code memory} (its address and size) as a segment of this session, for a downcall to pass. */
    MemorySegment view(MemorySegment memory) {
        return memory.reinterpret(arena, null);
    }

    /** Whether a drain has begun: the session no longer admits calls (the caller binds a new one). */
    boolean isDraining() {
        return draining;
    }

    /**
     * Closes the session once no call holds it; idempotent, and safe from two closers at once (a CQ's
     * destroy and its buffer's close). Bounded and starvation-free: once {@code draining} is set, a call
     * acquires the session only if it read the flag before (each such call holds it for one non-blocking
     * downcall, whose critical linkage never blocks), and a call that acquires it after the close fails
     * in the linker. So each failed close attempt waits for one of finitely many calls.
     */
    void drain() {
        draining = true;
        for (int attempt = 0; ; attempt++) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException heldOrClosed) {
                if (!arena.scope().isAlive()) {
                    return;
                }
                // Held by a call in flight: a poll or post of a few nanoseconds to microseconds.
                if (attempt < 100) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(50_000);
                }
            }
        }
    }

    /** Drains the session for good: its buffer or request is being closed. */
    void retire() {
        drain();
        registry.forget(this);
    }

    @Override
    public String toString() {
        return "call session on " + target.describe() + (arena.scope().isAlive() ? "" : " (drained)");
    }
}
