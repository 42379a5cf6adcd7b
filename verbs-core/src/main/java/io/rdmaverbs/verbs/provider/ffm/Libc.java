package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Downcalls.ERRNO;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The libc functions the verbs need around them: {@code open}/{@code close} for the file that names
 * a shared XRC domain, {@code fcntl} to make event descriptors non-blocking, {@code poll} to wait
 * on them with a timeout, and {@code eventfd}/{@code read}/{@code write} for the wake descriptor that
 * ends such a wait early. Found in the JVM's default lookup, which already has libc loaded.
 */
final class Libc {

    /* <fcntl.h> and <poll.h> values; identical on x86_64 and aarch64 (asm-generic). */
    static final int O_RDONLY = 0;
    static final int O_CREAT = 0100;
    static final int O_EXCL = 0200;
    static final int O_NONBLOCK = 04000;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    /* <sys/eventfd.h>: EFD_NONBLOCK = O_NONBLOCK, EFD_CLOEXEC = O_CLOEXEC (asm-generic on both). */
    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;

    private Libc() {
    }

    private static MethodHandle symbol(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        return Downcalls.symbol(Downcalls.LINKER.defaultLookup(), "libc",
                "run on a glibc that has it (Debian 12's does).", name, descriptor, options);
    }

    /** {@code int open(const char *path, int flags, ...)}: the mode is variadic. */
    private static final class open {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT);
        static final MethodHandle HANDLE = symbol("open", DESC, ERRNO, Linker.Option.firstVariadicArg(2));
    }

    static int open(MemorySegment state, MemorySegment path, int flags, int mode) {
        try {
            return (int) open.HANDLE.invokeExact(state, path, flags, mode);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class close {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
        static final MethodHandle HANDLE = symbol("close", DESC, ERRNO);
    }

    static int close(MemorySegment state, int fd) {
        try {
            return (int) close.HANDLE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /**
     * {@code int fcntl(int fd, int cmd, ...)}: always called with one variadic int, which
     * {@code F_GETFL} ignores, so one descriptor serves both commands.
     */
    private static final class fcntl {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
        static final MethodHandle HANDLE = symbol("fcntl", DESC, ERRNO, Linker.Option.firstVariadicArg(2));
    }

    static int fcntl(MemorySegment state, int fd, int cmd, int arg) {
        try {
            return (int) fcntl.HANDLE.invokeExact(state, fd, cmd, arg);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** Blocks up to its timeout: never critical. */
    private static final class poll {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT);
        static final MethodHandle HANDLE = symbol("poll", DESC, ERRNO);
    }

    static int poll(MemorySegment state, MemorySegment fds, long count, int timeoutMillis) {
        try {
            return (int) poll.HANDLE.invokeExact(state, fds, count, timeoutMillis);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** {@code int eventfd(unsigned int initval, int flags)}. */
    private static final class eventfd {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT);
        static final MethodHandle HANDLE = symbol("eventfd", DESC, ERRNO);
    }

    static int eventfd(MemorySegment state, int initialValue, int flags) {
        try {
            return (int) eventfd.HANDLE.invokeExact(state, initialValue, flags);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** {@code ssize_t read(int fd, void *buf, size_t count)}; only ever on non-blocking descriptors. */
    private static final class read {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG);
        static final MethodHandle HANDLE = symbol("read", DESC, ERRNO);
    }

    static long read(MemorySegment state, int fd, MemorySegment buffer, long count) {
        try {
            return (long) read.HANDLE.invokeExact(state, fd, buffer, count);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** {@code ssize_t write(int fd, const void *buf, size_t count)}; only ever on non-blocking descriptors. */
    private static final class write {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG);
        static final MethodHandle HANDLE = symbol("write", DESC, ERRNO);
    }

    static long write(MemorySegment state, int fd, MemorySegment buffer, long count) {
        try {
            return (long) write.HANDLE.invokeExact(state, fd, buffer, count);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }
}
