package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.Errno;
import io.rdmaverbs.verbs.VerbsException;

/**
 * The two event descriptors libibverbs hands out, a completion channel's {@code fd} and a context's
 * {@code async_fd}. {@code ibv_get_cq_event} and {@code ibv_get_async_event} are plain
 * {@code read(2)}s on them, which would block without a timeout; so the descriptors are made
 * non-blocking once, and waited on with {@code poll(2)} up to a deadline.
 */
final class EventDescriptors {

    /** Waits are cut into slices this long so that an interrupted thread stops waiting soon. */
    private static final int SLICE_MILLIS = 200;
    private static final long FOREVER = Long.MAX_VALUE;

    private EventDescriptors() {
    }

    /** {@code fcntl(fd, F_SETFL, flags | O_NONBLOCK)}; returns the errno, or 0. */
    static int makeNonBlocking(int fd, MemorySegment state) {
        int flags = Libc.fcntl(state, fd, Libc.F_GETFL, 0);
        if (flags < 0) {
            return CallState.errno(state);
        }
        if ((flags & Libc.O_NONBLOCK) == 0 && Libc.fcntl(state, fd, Libc.F_SETFL, flags | Libc.O_NONBLOCK) < 0) {
            return CallState.errno(state);
        }
        return 0;
    }

    /** A {@link System#nanoTime()} deadline; a negative timeout waits forever. */
    static long deadline(long timeoutMillis) {
        if (timeoutMillis < 0) {
            return FOREVER;
        }
        long now = System.nanoTime();
        long end = now + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        return end < now ? FOREVER : end;
    }

    /**
     * {@code poll(2)} until {@code fd} is readable or the deadline passes. An interrupted thread stops
     * waiting within a slice, with its interrupt status left set, as if the wait had timed out.
     *
     * @param pollFd a {@code struct pollfd} to use
     * @return whether the descriptor is readable
     */
    static boolean awaitReadable(NativeHandle owner, int fd, MemorySegment pollFd, long deadline,
            MemorySegment state) {
        while (!Thread.currentThread().isInterrupted()) {
            long remaining = deadline == FOREVER ? SLICE_MILLIS
                    : TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime() + 999_999);
            int timeout = (int) Math.max(0, Math.min(remaining, SLICE_MILLIS));
            pollFd.set(C_INT, PollFd.FD, fd);
            pollFd.set(U16, PollFd.EVENTS, PollFd.POLLIN);
            pollFd.set(U16, PollFd.REVENTS, (short) 0);
            int ready = Libc.poll(state, pollFd, 1, timeout);
            if (ready > 0) {
                return true;
            }
            if (ready < 0) {
                int errno = CallState.errno(state);
                if (errno != Libc.EINTR) {
                    throw new VerbsException("poll", owner.describe(), Errno.of(errno),
                            "could not wait on descriptor " + fd);
                }
            } else if (deadline != FOREVER && System.nanoTime() - deadline >= 0) {
                return false;
            }
        }
        return false;
    }
}
