package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Downcalls.ERRNO;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException.Reason;

import org.jspecify.annotations.Nullable;

/**
 * The exported functions of {@code libibverbs.so.1}, one holder class per symbol (as jextract lays
 * them out) so that each downcall handle is created once, on first use, and a symbol the library
 * lacks fails only the verb that needs it. The static-inline verbs of {@code verbs.h} are not
 * exported; they are in {@link InlineVerbs}.
 *
 * <p>Calls that may fail take a {@link CallState} segment first, where {@code errno} is left.
 */
final class Libibverbs {

    /** System property naming the library file; without it {@value #LIBRARY_NAME} is found by the dynamic linker. */
    static final String LIBRARY_PROPERTY = "io.rdmaverbs.verbs.library";
    static final String LIBRARY_NAME = "libibverbs.so.1";

    /** Checked when the library is opened: without these nothing works, so the provider is unavailable. */
    private static final List<String> REQUIRED = List.of("ibv_get_device_list", "ibv_free_device_list",
            "ibv_get_device_name", "ibv_get_device_guid", "ibv_open_device", "ibv_close_device",
            "ibv_query_device", "ibv_alloc_pd", "ibv_dealloc_pd");

    /* Written once, under NativeVerbsProvider's lock, before any holder class is initialised. */
    private static volatile @Nullable SymbolLookup lookup;
    private static volatile String description = LIBRARY_NAME;

    private Libibverbs() {
    }

    /**
     * Opens the library for good (the global arena: one libibverbs per process, never unloaded) and
     * checks it is libibverbs.
     *
     * @param path the library file, or {@code null} to let the dynamic linker find {@value #LIBRARY_NAME}
     * @param origin where {@code path} came from, for messages
     * @return where the library was loaded from
     */
    static String open(@Nullable Path path, String origin) {
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
        String from = path == null ? mappedPath().orElse(LIBRARY_NAME) : path.toAbsolutePath().toString();
        if (!missing.isEmpty()) {
            throw new ProviderUnavailableException(Reason.SYMBOL_MISSING, from + " (" + origin + ") lacks "
                    + String.join(", ", missing) + ": it is not libibverbs.so.1 from rdma-core. Point -D"
                    + LIBRARY_PROPERTY + " at libibverbs.so.1 or unset it to use the system's.");
        }
        lookup = opened;
        description = from;
        return from;
    }

    /** Where the library was loaded from, for diagnostics. */
    static String description() {
        return description;
    }

    private static ProviderUnavailableException notFound(@Nullable Path path, String origin, Exception cause) {
        if (path == null) {
            return new ProviderUnavailableException(Reason.LIBRARY_NOT_FOUND, LIBRARY_NAME
                    + " was not found by the dynamic linker. Install it (Debian/Ubuntu: apt install libibverbs1 "
                    + "ibverbs-providers; RHEL/Fedora: dnf install libibverbs rdma-core), or set -D"
                    + LIBRARY_PROPERTY + "=/path/to/libibverbs.so.1.", cause);
        }
        String problem = Files.exists(path)
                ? "exists but could not be loaded (" + cause.getMessage() + "); it must be a shared library for "
                        + Platform.description()
                : "does not exist";
        return new ProviderUnavailableException(Reason.LIBRARY_NOT_FOUND, "libibverbs at " + path + " (" + origin
                + ") " + problem + ". Fix that path, or remove it to use the system's " + LIBRARY_NAME
                + " (apt install libibverbs1 ibverbs-providers).", cause);
    }

    /* The dynamic linker picked the file; /proc/self/maps says which, which helps whoever reads a health report. */
    private static Optional<String> mappedPath() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.map(line -> line.substring(line.indexOf('/') < 0 ? line.length() : line.indexOf('/')))
                    .filter(file -> file.contains("/libibverbs.so"))
                    .findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** What to do when this library lacks a symbol the binding calls. */
    private static final String UPGRADE = "upgrade libibverbs1 / rdma-core, or point -D" + LIBRARY_PROPERTY
            + " at a current libibverbs.so.1.";

    /** A function that reports failure through {@code errno}: its handle takes a {@link CallState} first. */
    private static MethodHandle symbol(String name, FunctionDescriptor descriptor) {
        return Downcalls.symbol(lookup, "libibverbs", UPGRADE, name, descriptor, ERRNO);
    }

    /** A function that cannot fail (or returns nothing): no errno to capture. */
    private static MethodHandle infallible(String name, FunctionDescriptor descriptor) {
        return Downcalls.symbol(lookup, "libibverbs", UPGRADE, name, descriptor);
    }

    // ---- devices ------------------------------------------------------------------------------

    private static final class ibv_get_device_list {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_get_device_list", DESC);
    }

    static MemorySegment ibv_get_device_list(MemorySegment state, MemorySegment numDevices) {
        try {
            return (MemorySegment) ibv_get_device_list.HANDLE.invokeExact(state, numDevices);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_free_device_list {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS);
        static final MethodHandle HANDLE = infallible("ibv_free_device_list", DESC);
    }

    static void ibv_free_device_list(MemorySegment list) {
        try {
            ibv_free_device_list.HANDLE.invokeExact(list);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_get_device_name {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = infallible("ibv_get_device_name", DESC);
    }

    static MemorySegment ibv_get_device_name(MemorySegment device) {
        try {
            return (MemorySegment) ibv_get_device_name.HANDLE.invokeExact(device);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_get_device_guid {
        /** Returns a {@code __be64}: big-endian bytes in a 64-bit register. */
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_LONG, ADDRESS);
        static final MethodHandle HANDLE = infallible("ibv_get_device_guid", DESC);
    }

    static long ibv_get_device_guid(MemorySegment device) {
        try {
            return (long) ibv_get_device_guid.HANDLE.invokeExact(device);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_open_device {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_open_device", DESC);
    }

    static MemorySegment ibv_open_device(MemorySegment state, MemorySegment device) {
        try {
            return (MemorySegment) ibv_open_device.HANDLE.invokeExact(state, device);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_close_device {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_close_device", DESC);
    }

    static int ibv_close_device(MemorySegment state, MemorySegment context) {
        try {
            return (int) ibv_close_device.HANDLE.invokeExact(state, context);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_query_device {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_query_device", DESC);
    }

    static int ibv_query_device(MemorySegment state, MemorySegment context, MemorySegment deviceAttr) {
        try {
            return (int) ibv_query_device.HANDLE.invokeExact(state, context, deviceAttr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** The exported compat {@code ibv_query_port}; {@link InlineVerbs#ibv_query_port} prefers the context op. */
    private static final class ibv_query_port {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_query_port", DESC);
    }

    static int ibv_query_port(MemorySegment state, MemorySegment context, byte port, MemorySegment portAttr) {
        try {
            return (int) ibv_query_port.HANDLE.invokeExact(state, context, port, portAttr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_query_gid {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_query_gid", DESC);
    }

    static int ibv_query_gid(MemorySegment state, MemorySegment context, byte port, int index, MemorySegment gid) {
        try {
            return (int) ibv_query_gid.HANDLE.invokeExact(state, context, port, index, gid);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    // ---- protection domains -------------------------------------------------------------------

    private static final class ibv_alloc_pd {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_alloc_pd", DESC);
    }

    static MemorySegment ibv_alloc_pd(MemorySegment state, MemorySegment context) {
        try {
            return (MemorySegment) ibv_alloc_pd.HANDLE.invokeExact(state, context);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_dealloc_pd {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_dealloc_pd", DESC);
    }

    static int ibv_dealloc_pd(MemorySegment state, MemorySegment pd) {
        try {
            return (int) ibv_dealloc_pd.HANDLE.invokeExact(state, pd);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    // ---- completion channels and CQs ------------------------------------------------------------

    private static final class ibv_create_comp_channel {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_create_comp_channel", DESC);
    }

    static MemorySegment ibv_create_comp_channel(MemorySegment state, MemorySegment context) {
        try {
            return (MemorySegment) ibv_create_comp_channel.HANDLE.invokeExact(state, context);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_destroy_comp_channel {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_destroy_comp_channel", DESC);
    }

    static int ibv_destroy_comp_channel(MemorySegment state, MemorySegment channel) {
        try {
            return (int) ibv_destroy_comp_channel.HANDLE.invokeExact(state, channel);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_create_cq {
        static final FunctionDescriptor DESC =
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
        static final MethodHandle HANDLE = symbol("ibv_create_cq", DESC);
    }

    static MemorySegment ibv_create_cq(MemorySegment state, MemorySegment context, int cqe, MemorySegment cqContext,
            MemorySegment channel, int compVector) {
        try {
            return (MemorySegment) ibv_create_cq.HANDLE.invokeExact(state, context, cqe, cqContext, channel,
                    compVector);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** Blocks while completion events of the CQ are unacknowledged ({@code ibv_ack_cq_events}). */
    private static final class ibv_destroy_cq {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_destroy_cq", DESC);
    }

    static int ibv_destroy_cq(MemorySegment state, MemorySegment cq) {
        try {
            return (int) ibv_destroy_cq.HANDLE.invokeExact(state, cq);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** A {@code read(2)} on the channel's descriptor: blocks unless the descriptor is non-blocking. */
    private static final class ibv_get_cq_event {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_get_cq_event", DESC);
    }

    static int ibv_get_cq_event(MemorySegment state, MemorySegment channel, MemorySegment cqOut,
            MemorySegment cqContextOut) {
        try {
            return (int) ibv_get_cq_event.HANDLE.invokeExact(state, channel, cqOut, cqContextOut);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_ack_cq_events {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT);
        static final MethodHandle HANDLE = infallible("ibv_ack_cq_events", DESC);
    }

    static void ibv_ack_cq_events(MemorySegment cq, int count) {
        try {
            ibv_ack_cq_events.HANDLE.invokeExact(cq, count);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    // ---- SRQs and QPs ---------------------------------------------------------------------------

    private static final class ibv_create_srq {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_create_srq", DESC);
    }

    static MemorySegment ibv_create_srq(MemorySegment state, MemorySegment pd, MemorySegment srqInitAttr) {
        try {
            return (MemorySegment) ibv_create_srq.HANDLE.invokeExact(state, pd, srqInitAttr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_destroy_srq {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_destroy_srq", DESC);
    }

    static int ibv_destroy_srq(MemorySegment state, MemorySegment srq) {
        try {
            return (int) ibv_destroy_srq.HANDLE.invokeExact(state, srq);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_create_qp {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_create_qp", DESC);
    }

    static MemorySegment ibv_create_qp(MemorySegment state, MemorySegment pd, MemorySegment qpInitAttr) {
        try {
            return (MemorySegment) ibv_create_qp.HANDLE.invokeExact(state, pd, qpInitAttr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_destroy_qp {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_destroy_qp", DESC);
    }

    static int ibv_destroy_qp(MemorySegment state, MemorySegment qp) {
        try {
            return (int) ibv_destroy_qp.HANDLE.invokeExact(state, qp);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_modify_qp {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
        static final MethodHandle HANDLE = symbol("ibv_modify_qp", DESC);
    }

    static int ibv_modify_qp(MemorySegment state, MemorySegment qp, MemorySegment attr, int mask) {
        try {
            return (int) ibv_modify_qp.HANDLE.invokeExact(state, qp, attr, mask);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_query_qp {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_query_qp", DESC);
    }

    static int ibv_query_qp(MemorySegment state, MemorySegment qp, MemorySegment attr, int mask,
            MemorySegment initAttr) {
        try {
            return (int) ibv_query_qp.HANDLE.invokeExact(state, qp, attr, mask, initAttr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_attach_mcast {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT);
        static final MethodHandle HANDLE = symbol("ibv_attach_mcast", DESC);
    }

    static int ibv_attach_mcast(MemorySegment state, MemorySegment qp, MemorySegment gid, short lid) {
        try {
            return (int) ibv_attach_mcast.HANDLE.invokeExact(state, qp, gid, lid);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_detach_mcast {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT);
        static final MethodHandle HANDLE = symbol("ibv_detach_mcast", DESC);
    }

    static int ibv_detach_mcast(MemorySegment state, MemorySegment qp, MemorySegment gid, short lid) {
        try {
            return (int) ibv_detach_mcast.HANDLE.invokeExact(state, qp, gid, lid);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    // ---- memory regions and address handles -----------------------------------------------------

    private static final class ibv_reg_mr {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT);
        static final MethodHandle HANDLE = symbol("ibv_reg_mr", DESC);
    }

    static MemorySegment ibv_reg_mr(MemorySegment state, MemorySegment pd, MemorySegment addr, long length,
            int access) {
        try {
            return (MemorySegment) ibv_reg_mr.HANDLE.invokeExact(state, pd, addr, length, access);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** What the {@code ibv_reg_mr} macro calls when optional access flags are asked for. */
    private static final class ibv_reg_mr_iova2 {
        static final FunctionDescriptor DESC =
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT);
        static final MethodHandle HANDLE = symbol("ibv_reg_mr_iova2", DESC);
    }

    static MemorySegment ibv_reg_mr_iova2(MemorySegment state, MemorySegment pd, MemorySegment addr, long length,
            long iova, int access) {
        try {
            return (MemorySegment) ibv_reg_mr_iova2.HANDLE.invokeExact(state, pd, addr, length, iova, access);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_dereg_mr {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_dereg_mr", DESC);
    }

    static int ibv_dereg_mr(MemorySegment state, MemorySegment mr) {
        try {
            return (int) ibv_dereg_mr.HANDLE.invokeExact(state, mr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_create_ah {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_create_ah", DESC);
    }

    static MemorySegment ibv_create_ah(MemorySegment state, MemorySegment pd, MemorySegment ahAttr) {
        try {
            return (MemorySegment) ibv_create_ah.HANDLE.invokeExact(state, pd, ahAttr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_destroy_ah {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_destroy_ah", DESC);
    }

    static int ibv_destroy_ah(MemorySegment state, MemorySegment ah) {
        try {
            return (int) ibv_destroy_ah.HANDLE.invokeExact(state, ah);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    // ---- async events ---------------------------------------------------------------------------

    /** A {@code read(2)} on {@code async_fd}: blocks unless the descriptor is non-blocking. */
    private static final class ibv_get_async_event {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = symbol("ibv_get_async_event", DESC);
    }

    static int ibv_get_async_event(MemorySegment state, MemorySegment context, MemorySegment event) {
        try {
            return (int) ibv_get_async_event.HANDLE.invokeExact(state, context, event);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static final class ibv_ack_async_event {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS);
        static final MethodHandle HANDLE = infallible("ibv_ack_async_event", DESC);
    }

    static void ibv_ack_async_event(MemorySegment event) {
        try {
            ibv_ack_async_event.HANDLE.invokeExact(event);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    // ---- the new post API -----------------------------------------------------------------------

    /** The {@code struct ibv_qp_ex} of a QP created with send ops, NULL for another QP; never fails. */
    private static final class ibv_qp_to_qp_ex {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = infallible("ibv_qp_to_qp_ex", DESC);
    }

    static MemorySegment ibv_qp_to_qp_ex(MemorySegment qp) {
        try {
            return (MemorySegment) ibv_qp_to_qp_ex.HANDLE.invokeExact(qp);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }
}
