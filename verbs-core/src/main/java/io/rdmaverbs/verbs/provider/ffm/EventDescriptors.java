package io.rdmaverbs.verbs.provider.ffm;


import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

/**
 * The two event descriptors libibverbs hands out, a completion channel's {@code fd} and a context's
 * {@code async_fd}. {@code ibv_get_cq_event} and {@code ibv_get_async_event} are plain
 * {@code read(2)}s on them, which would block without a timeout; so the descriptors are made
 * non-blocking once, and waited on with {@code poll(2)} up to a deadline, together with the owner's
 * {@link WakeDescriptor}, which ends the wait early when another thread wakes it.
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

    /** Room for the two {@code struct pollfd} {@link #awaitReadable} polls. */
    static MemorySegment pollFds(Arena arena) {
        return arena.allocate(PollFd.LAYOUT, 2);
    }

    /**
     * {@code poll(2)} until {@code fd} is readable, the owner is woken or the deadline passes. An
     * interrupted thread stops waiting within a slice, with its interrupt status left set, as if the
     * wait had timed out. An event wins over a wake that came with it: the wake then stays pending and
     * ends the next wait instead.
     *
     * @param wake the owner's wake descriptor, polled beside {@code fd}; drained when it woke the wait
     * @param pollFds two {@code struct pollfd}, from {@link #pollFds}
     * @return whether {@code fd} is readable; false on timeout, interrupt and wake alike
     */
    static boolean awaitReadable(NativeHandle owner, int fd, WakeDescriptor wake, MemorySegment pollFds,
            long deadline, MemorySegment state) {
        long size = PollFd.LAYOUT.byteSize();
        while (!Thread.currentThread().isInterrupted()) {
            long remaining = deadline == FOREVER ? SLICE_MILLIS
                    : TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime() + 999_999);
            int timeout = (int) Math.max(0, Math.min(remaining, SLICE_MILLIS));
            PollFd.FD.set(pollFds, fd);
            PollFd.EVENTS.set(pollFds, PollFd.POLLIN);
            PollFd.REVENTS.set(pollFds, (short) 0);
            PollFd.FD.set(pollFds, size, wake.fd());
            PollFd.EVENTS.set(pollFds, size, PollFd.POLLIN);
            PollFd.REVENTS.set(pollFds, size, (short) 0);
            int ready = Libc.poll(state, pollFds, 2, timeout);
            if (ready > 0) {
                if (PollFd.REVENTS.get(pollFds) != 0) {
                    return true;
                }
                // Only the wake descriptor is ready (POLLIN; POLLNVAL if a destroy closed it under us).
                wake.drain(state);
                return false;
            }
            if (ready < 0) {
                int errno = CallState.errno(state);
                if (errno != Errno.EINTR.number()) {
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
