package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * Where downcalls made with {@link Downcalls#ERRNO} leave {@code errno}. One segment per thread, so
 * that a call allocates nothing and two threads never read each other's errno. libc never clears
 * errno, so it is read only after a call reported failure.
 */
final class CallState {

    private static final StructLayout CAPTURED = Linker.Option.captureStateLayout();
    private static final Field.OfInt ERRNO = Field.ofInt(CAPTURED, "errno");

    /* An automatic arena: the segment is freed once its thread is gone and the entry unreachable. */
    private static final ThreadLocal<MemorySegment> CURRENT =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURED));

    private CallState() {
    }

    static MemorySegment current() {
        return CURRENT.get();
    }

    /**
     * A slot of one's own, for an object that is thread-confined by contract (a work request): the data
     * path then skips the thread-local lookup, which costs as much as a third of a post.
     */
    static MemorySegment allocate(Arena arena) {
        return arena.allocate(CAPTURED);
    }

    static int errno(MemorySegment state) {
        return ERRNO.get(state);
    }

    /** What {@code errno = EOPNOTSUPP;} does in a static-inline verb that fails without calling out. */
    static void errno(MemorySegment state, int value) {
        ERRNO.set(state, value);
    }
}
