package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

/**
 * The {@code eventfd(2)} a context or completion channel owns beside its event descriptor, so that a
 * thread waiting in {@code poll(2)} for an event can be woken at once: waking writes 1 to its counter,
 * which makes it readable; the woken waiter reads the counter back to 0.
 *
 * <p>Like the counter itself, a wake that finds no waiter is kept, and ends the next wait (one wait
 * only, however many wakes came). {@link #wake} and {@link #close} exclude each other, so a wake that
 * races with the destroy of its owner either writes to this descriptor while it is still open or does
 * nothing: it never writes to a descriptor number the process has meanwhile reused.
 */
final class WakeDescriptor {

    /** A descriptor {@code poll(2)} ignores; for handles made up by tests. */
    static final WakeDescriptor NONE = new WakeDescriptor(-1);

    private final int fd;
    /** Guarded by {@code this}. */
    private boolean closed;

    private WakeDescriptor(int fd) {
        this.fd = fd;
        this.closed = fd < 0;
    }

    /**
     * {@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}.
     *
     * @param owner what the descriptor is for, named by the exception
     */
    static WakeDescriptor open(MemorySegment state, String owner) {
        int fd = Libc.eventfd(state, 0, Libc.EFD_NONBLOCK | Libc.EFD_CLOEXEC);
        if (fd < 0) {
            int errno = CallState.errno(state);
            throw new VerbsException("eventfd", owner, Errno.of(errno),
                    "could not create the descriptor that wakes the event waiters of " + owner
                            + (Errno.of(errno).equals(Errno.EMFILE) ? ": too many open files (raise ulimit -n)" : ""));
        }
        return new WakeDescriptor(fd);
    }

    /** The descriptor to poll; negative (ignored by {@code poll(2)}) for {@link #NONE}. */
    int fd() {
        return fd;
    }

    /**
     * Adds 1 to the counter, making the descriptor readable; a no-op once closed. Never blocks: the
     * counter cannot realistically reach its maximum (EAGAIN would mean it is already readable anyway).
     */
    synchronized void wake() {
        if (closed) {
            return;
        }
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(JAVA_LONG);
            one.set(JAVA_LONG, 0, 1L);
            Libc.write(state, fd, one, JAVA_LONG.byteSize());
        }
    }

    /**
     * Reads the counter back to 0. EAGAIN (another waiter read it first) is fine: either way the wake
     * has been seen. A no-op once closed (a destroy that closed it under a waiter broke the verbs'
     * contract, but must not make the waiter read a descriptor number reused since).
     */
    synchronized void drain(MemorySegment state) {
        if (closed) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            Libc.read(state, fd, arena.allocate(JAVA_LONG), JAVA_LONG.byteSize());
        }
    }

    /** Closes the descriptor, once; only after the destroy of its owner succeeded. */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Libc.close(CallState.current(), fd);
    }

    @Override
    public String toString() {
        return "eventfd " + fd;
    }
}
