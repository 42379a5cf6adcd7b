package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Downcalls.ERRNO;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException.Reason;

import org.jspecify.annotations.Nullable;

/**
 * The exported functions of {@code librdmacm.so.1} ({@code rdma_cm(7)}), one holder class per symbol
 * as in {@link Libibverbs}. Loaded on its own and only on demand ({@link RdmaCm#load()}): a host
 * without librdmacm keeps the verbs, and only connection management reports itself unavailable.
 *
 * <p>librdmacm links the system's libibverbs itself and opens its own device contexts; when
 * {@code -D}{@value Libibverbs#LIBRARY_PROPERTY} names another libibverbs, the process has two.
 *
 * <p>Calls that may fail take a {@link CallState} segment first, where {@code errno} is left. None is
 * linked {@link Downcalls#CRITICAL}: every CM call is a write to {@code /dev/infiniband/rdma_cm}, and
 * {@code rdma_get_cm_event} and {@code rdma_destroy_id} may block.
 */
final class Librdmacm {

    /** System property naming the library file; without it {@value #LIBRARY_NAME} is found by the dynamic linker. */
    static final String LIBRARY_PROPERTY = "io.rdmaverbs.rdmacm.library";
    static final String LIBRARY_NAME = "librdmacm.so.1";

    /** Checked when the library is opened: a library without these is not librdmacm. */
    private static final List<String> REQUIRED = List.of("rdma_create_event_channel", "rdma_destroy_event_channel",
            "rdma_create_id", "rdma_destroy_id", "rdma_get_cm_event", "rdma_ack_cm_event", "rdma_event_str");

    /* Written once, under RdmaCm's lock, before any holder class is initialised. */
    private static volatile @Nullable SymbolLookup lookup;

    private Librdmacm() {
    }

    /**
     * Opens the library for good (the global arena: librdmacm keeps process-wide state and is never
     * unloaded) and checks it is librdmacm.
     *
     * @param path the library file, or {@code null} to let the dynamic linker find {@value #LIBRARY_NAME}
     * @param origin where {@code path} came from, for messages
     */
    static void open(@Nullable Path path, String origin) {
        SymbolLookup opened;
        try {
            opened = path == null
                    ? SymbolLookup.libraryLookup(LIBRARY_NAME, Arena.global())
                    : SymbolLookup.libraryLookup(path, Arena.global());
        } catch (IllegalCallerException e) {
            throw NativeAccess.disabled(e);
        } catch (IllegalArgumentException e) {
            throw notFound(path, origin, e);
        }
        List<String> missing = REQUIRED.stream().filter(name -> opened.find(name).isEmpty()).toList();
        if (!missing.isEmpty()) {
            throw new ProviderUnavailableException(Reason.SYMBOL_MISSING, (path == null ? LIBRARY_NAME : path)
                    + " (" + origin + ") lacks " + String.join(", ", missing) + ": it is not librdmacm.so.1 from "
                    + "rdma-core. Point -D" + LIBRARY_PROPERTY + " at librdmacm.so.1 or unset it to use the system's.");
        }
        lookup = opened;
    }

    private static ProviderUnavailableException notFound(@Nullable Path path, String origin, Exception cause) {
        String install = "(Debian/Ubuntu: apt install librdmacm1; RHEL/Fedora: dnf install librdmacm)";
        if (path == null) {
            return new ProviderUnavailableException(Reason.LIBRARY_NOT_FOUND, LIBRARY_NAME
                    + " was not found by the dynamic linker, so RDMA connection management is unavailable; the verbs "
                    + "are not affected. Install it " + install + ", or set -D" + LIBRARY_PROPERTY
                    + "=/path/to/librdmacm.so.1.", cause);
        }
        String problem = Files.exists(path)
                ? "exists but could not be loaded (" + cause.getMessage() + ")"
                : "does not exist";
        return new ProviderUnavailableException(Reason.LIBRARY_NOT_FOUND, "librdmacm at " + path + " (" + origin
                + ") " + problem + ", so RDMA connection management is unavailable; the verbs are not affected. "
                + "Fix that path, or remove it to use the system's " + LIBRARY_NAME + " " + install + ".", cause);
    }

    /** What to do when this library lacks a symbol the binding calls. */
    private static final String UPGRADE = "upgrade librdmacm1 / rdma-core, or point -D" + LIBRARY_PROPERTY
            + " at a current librdmacm.so.1.";

    /** A function that reports failure through {@code errno}: its handle takes a {@link CallState} first. */
    private static MethodHandle symbol(String name, FunctionDescriptor descriptor) {
        return Downcalls.symbol(lookup, "librdmacm", UPGRADE, name, descriptor, ERRNO);
    }

    /** A function that cannot fail (or returns nothing): no errno to capture. */
    private static MethodHandle infallible(String name, FunctionDescriptor descriptor) {
        return Downcalls.symbol(lookup, "librdmacm", UPGRADE, name, descriptor);
    }

    /** struct rdma_event_channel *rdma_create_event_channel(void): NULL and errno on failure. */
    private static final class rdma_create_event_channel {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_create_event_channel", DESC);
    }

    static MemorySegment rdma_create_event_channel(MemorySegment state) {
        try {
            return (MemorySegment) rdma_create_event_channel.HANDLE.invokeExact(state);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** void: fails silently if ids or unacked events remain (rdma_destroy_event_channel(3)). */
    private static final class rdma_destroy_event_channel {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS);
        static final MethodHandle HANDLE = infallible("rdma_destroy_event_channel", DESC);
    }

    static void rdma_destroy_event_channel(MemorySegment channel) {
        try {
            rdma_destroy_event_channel.HANDLE.invokeExact(channel);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** int rdma_create_id(channel, struct rdma_cm_id **id, void *context, enum rdma_port_space ps). */
    private static final class rdma_create_id {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
        static final MethodHandle HANDLE = symbol("rdma_create_id", DESC);
    }

    static int rdma_create_id(MemorySegment state, MemorySegment channel, MemorySegment idOut, MemorySegment context,
            int portSpace) {
        try {
            return (int) rdma_create_id.HANDLE.invokeExact(state, channel, idOut, context, portSpace);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** Blocks until every event of the id is acknowledged (rdma_destroy_id(3)): never critical. */
    private static final class rdma_destroy_id {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_destroy_id", DESC);
    }

    static int rdma_destroy_id(MemorySegment state, MemorySegment id) {
        try {
            return (int) rdma_destroy_id.HANDLE.invokeExact(state, id);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class rdma_bind_addr {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_bind_addr", DESC);
    }

    static int rdma_bind_addr(MemorySegment state, MemorySegment id, MemorySegment addr) {
        try {
            return (int) rdma_bind_addr.HANDLE.invokeExact(state, id, addr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** src may be NULL; the answer is an ADDR_RESOLVED or ADDR_ERROR event within timeout_ms. */
    private static final class rdma_resolve_addr {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
        static final MethodHandle HANDLE = symbol("rdma_resolve_addr", DESC);
    }

    static int rdma_resolve_addr(MemorySegment state, MemorySegment id, MemorySegment srcAddr, MemorySegment dstAddr,
            int timeoutMillis) {
        try {
            return (int) rdma_resolve_addr.HANDLE.invokeExact(state, id, srcAddr, dstAddr, timeoutMillis);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class rdma_resolve_route {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);
        static final MethodHandle HANDLE = symbol("rdma_resolve_route", DESC);
    }

    static int rdma_resolve_route(MemorySegment state, MemorySegment id, int timeoutMillis) {
        try {
            return (int) rdma_resolve_route.HANDLE.invokeExact(state, id, timeoutMillis);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class rdma_listen {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);
        static final MethodHandle HANDLE = symbol("rdma_listen", DESC);
    }

    static int rdma_listen(MemorySegment state, MemorySegment id, int backlog) {
        try {
            return (int) rdma_listen.HANDLE.invokeExact(state, id, backlog);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class rdma_connect {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_connect", DESC);
    }

    static int rdma_connect(MemorySegment state, MemorySegment id, MemorySegment connParam) {
        try {
            return (int) rdma_connect.HANDLE.invokeExact(state, id, connParam);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class rdma_accept {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_accept", DESC);
    }

    static int rdma_accept(MemorySegment state, MemorySegment id, MemorySegment connParam) {
        try {
            return (int) rdma_accept.HANDLE.invokeExact(state, id, connParam);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** private_data_len is a uint8_t. */
    private static final class rdma_reject {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE);
        static final MethodHandle HANDLE = symbol("rdma_reject", DESC);
    }

    static int rdma_reject(MemorySegment state, MemorySegment id, MemorySegment privateData, byte privateDataLen) {
        try {
            return (int) rdma_reject.HANDLE.invokeExact(state, id, privateData, privateDataLen);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class rdma_disconnect {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_disconnect", DESC);
    }

    static int rdma_disconnect(MemorySegment state, MemorySegment id) {
        try {
            return (int) rdma_disconnect.HANDLE.invokeExact(state, id);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** Blocks unless the channel's fd is non-blocking: never critical. */
    private static final class rdma_get_cm_event {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_get_cm_event", DESC);
    }

    static int rdma_get_cm_event(MemorySegment state, MemorySegment channel, MemorySegment eventOut) {
        try {
            return (int) rdma_get_cm_event.HANDLE.invokeExact(state, channel, eventOut);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class rdma_ack_cm_event {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_ack_cm_event", DESC);
    }

    static int rdma_ack_cm_event(MemorySegment state, MemorySegment event) {
        try {
            return (int) rdma_ack_cm_event.HANDLE.invokeExact(state, event);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** Takes a struct ibv_qp_init_attr, the first members of ibv_qp_init_attr_ex. */
    private static final class rdma_create_qp {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_create_qp", DESC);
    }

    static int rdma_create_qp(MemorySegment state, MemorySegment id, MemorySegment pd, MemorySegment initAttr) {
        try {
            return (int) rdma_create_qp.HANDLE.invokeExact(state, id, pd, initAttr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** void: hides ibv_destroy_qp's errno (rdma_destroy_qp(3)). */
    private static final class rdma_destroy_qp {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS);
        static final MethodHandle HANDLE = infallible("rdma_destroy_qp", DESC);
    }

    static void rdma_destroy_qp(MemorySegment id) {
        try {
            rdma_destroy_qp.HANDLE.invokeExact(id);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** struct ibv_context **rdma_get_devices(int *num_devices): NULL and errno on failure. */
    private static final class rdma_get_devices {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_get_devices", DESC);
    }

    static MemorySegment rdma_get_devices(MemorySegment state, MemorySegment numDevices) {
        try {
            return (MemorySegment) rdma_get_devices.HANDLE.invokeExact(state, numDevices);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class rdma_free_devices {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS);
        static final MethodHandle HANDLE = infallible("rdma_free_devices", DESC);
    }

    static void rdma_free_devices(MemorySegment list) {
        try {
            rdma_free_devices.HANDLE.invokeExact(list);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** A static string; "UNKNOWN EVENT" for a value it does not know. */
    private static final class rdma_event_str {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, JAVA_INT);
        static final MethodHandle HANDLE = infallible("rdma_event_str", DESC);
    }

    static MemorySegment rdma_event_str(int event) {
        try {
            return (MemorySegment) rdma_event_str.HANDLE.invokeExact(event);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class rdma_migrate_id {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("rdma_migrate_id", DESC);
    }

    static int rdma_migrate_id(MemorySegment state, MemorySegment id, MemorySegment channel) {
        try {
            return (int) rdma_migrate_id.HANDLE.invokeExact(state, id, channel);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }
}
