package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException.Reason;

import org.jspecify.annotations.Nullable;

/**
 * The librdmacm downcalls with Java arguments and {@link VerbsException}s: what the graph's CM
 * resources and a connection verb group build on. It owns nothing: every pointer it returns is the
 * caller's to release with the matching call, in the order {@code rdma_destroy_id(3)} and
 * {@code rdma_destroy_event_channel(3)} require (QP, then acked events, then id, then channel). It
 * checks only what C cannot (a NULL handle, a Java value out of a C type's range); the state rules
 * are the graph's and the kernel's.
 */
final class RdmaCm {

    /** Where the rdma_ucm kernel module publishes its ABI; librdmacm reads it before anything else. */
    static final Path UCMA_ABI_VERSION = Path.of("/sys/class/misc/rdma_cm/abi_version");

    private static @Nullable RdmaCm loaded;

    private RdmaCm() {
    }

    /**
     * librdmacm, from the file named by {@value Librdmacm#LIBRARY_PROPERTY} or else the dynamic linker's
     * {@value Librdmacm#LIBRARY_NAME}; opened once per process.
     *
     * @throws ProviderUnavailableException when it is missing, is not librdmacm, native access is
     *         disabled or the platform is not LP64 Linux; the verbs binding is unaffected
     */
    static synchronized RdmaCm load() {
        if (loaded == null) {
            String unsupported = Platform.unsupportedReason();
            if (unsupported != null) {
                // The layouts are those of LP64 Linux on x86_64 and aarch64, as for the verbs.
                throw new ProviderUnavailableException(Reason.UNSUPPORTED_PLATFORM, unsupported
                        + ", so librdmacm's structs cannot be laid out here.");
            }
            String configured = System.getProperty(Librdmacm.LIBRARY_PROPERTY);
            Librdmacm.open(configured == null || configured.isBlank() ? null : Path.of(configured),
                    configured == null ? "the dynamic linker's search path"
                            : "system property " + Librdmacm.LIBRARY_PROPERTY);
            loaded = new RdmaCm();
        }
        return loaded;
    }

    /** {@code rdma_create_event_channel(3)}: the {@code struct rdma_event_channel *}. */
    MemorySegment createEventChannel() {
        MemorySegment state = CallState.current();
        MemorySegment channel = Librdmacm.rdma_create_event_channel(state);
        if (channel.equals(MemorySegment.NULL)) {
            throw failure("rdma_create_event_channel", "event channel", CallState.errno(state));
        }
        return channel.reinterpret(RdmaEventChannel.LAYOUT.byteSize());
    }

    /** The descriptor {@code rdma_get_cm_event} reads: poll it for {@code POLLIN}. */
    static int fd(MemorySegment channel) {
        return RdmaEventChannel.FD.get(channel.reinterpret(RdmaEventChannel.LAYOUT.byteSize()));
    }

    /** {@code rdma_destroy_event_channel(3)}: void, and it cannot refuse; the caller must have released its ids. */
    void destroyEventChannel(MemorySegment channel) {
        Librdmacm.rdma_destroy_event_channel(required(channel, "rdma_destroy_event_channel", "channel"));
    }

    /**
     * {@code rdma_create_id(3)} on {@code channel}, or in synchronous mode when {@code channel} is NULL.
     *
     * @param portSpace {@link RdmaCmId#RDMA_PS_TCP} (RC) or {@link RdmaCmId#RDMA_PS_UDP} (UD)
     */
    MemorySegment createId(MemorySegment channel, MemorySegment context, int portSpace) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment state = CallState.current();
            check("rdma_create_id", "port space 0x" + Integer.toHexString(portSpace),
                    Librdmacm.rdma_create_id(state, channel, out, context, portSpace), state);
            return out.get(ADDRESS, 0).reinterpret(RdmaCmId.LAYOUT.byteSize());
        }
    }

    /** {@code rdma_destroy_id(3)}: blocks while an event of the id is unacknowledged. */
    void destroyId(MemorySegment id) {
        MemorySegment state = CallState.current();
        check("rdma_destroy_id", describe(id), Librdmacm.rdma_destroy_id(state, required(id, "rdma_destroy_id", "id")),
                state);
    }

    /** {@code rdma_bind_addr(3)}; port 0 lets the CM pick one, read back with {@link #localAddress}. */
    void bindAddr(MemorySegment id, InetSocketAddress address) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = CallState.current();
            check("rdma_bind_addr", describe(id) + " to " + address,
                    Librdmacm.rdma_bind_addr(state, required(id, "rdma_bind_addr", "id"),
                            Sockaddr.encode(address, arena)), state);
        }
    }

    /** {@code rdma_resolve_addr(3)}: answered by an {@code ADDR_RESOLVED} or {@code ADDR_ERROR} event. */
    void resolveAddr(MemorySegment id, @Nullable InetSocketAddress source, InetSocketAddress destination,
            int timeoutMillis) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = CallState.current();
            MemorySegment src = source == null ? MemorySegment.NULL : Sockaddr.encode(source, arena);
            check("rdma_resolve_addr", describe(id) + " to " + destination,
                    Librdmacm.rdma_resolve_addr(state, required(id, "rdma_resolve_addr", "id"), src,
                            Sockaddr.encode(destination, arena), timeoutMillis), state);
        }
    }

    /** {@code rdma_resolve_route(3)}: answered by a {@code ROUTE_RESOLVED} or {@code ROUTE_ERROR} event. */
    void resolveRoute(MemorySegment id, int timeoutMillis) {
        MemorySegment state = CallState.current();
        check("rdma_resolve_route", describe(id),
                Librdmacm.rdma_resolve_route(state, required(id, "rdma_resolve_route", "id"), timeoutMillis), state);
    }

    /** {@code rdma_listen(3)}; each request arrives as a {@code CONNECT_REQUEST} event with a new id. */
    void listen(MemorySegment id, int backlog) {
        MemorySegment state = CallState.current();
        check("rdma_listen", describe(id), Librdmacm.rdma_listen(state, required(id, "rdma_listen", "id"), backlog),
                state);
    }

    /** {@code rdma_connect(3)}, with the private data copied for the call. */
    void connect(MemorySegment id, CmConnParam param) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = CallState.current();
            check("rdma_connect", describe(id),
                    Librdmacm.rdma_connect(state, required(id, "rdma_connect", "id"), param.encode(arena)), state);
        }
    }

    /** {@code rdma_accept(3)} on the id of a {@code CONNECT_REQUEST}. */
    void accept(MemorySegment id, CmConnParam param) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = CallState.current();
            check("rdma_accept", describe(id),
                    Librdmacm.rdma_accept(state, required(id, "rdma_accept", "id"), param.encode(arena)), state);
        }
    }

    /** {@code rdma_reject(3)}: the peer gets a {@code REJECTED} event carrying {@code privateData}. */
    void reject(MemorySegment id, byte[] privateData) {
        if (privateData.length > CmConnParam.MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data of " + privateData.length
                    + " bytes does not fit rdma_reject's uint8_t private_data_len (at most 255)");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = privateData.length == 0 ? MemorySegment.NULL
                    : arena.allocateFrom(JAVA_BYTE, privateData);
            MemorySegment state = CallState.current();
            check("rdma_reject", describe(id), Librdmacm.rdma_reject(state, required(id, "rdma_reject", "id"), data,
                    (byte) privateData.length), state);
        }
    }

    /** {@code rdma_disconnect(3)}: both sides then get {@code DISCONNECTED}. */
    void disconnect(MemorySegment id) {
        MemorySegment state = CallState.current();
        check("rdma_disconnect", describe(id), Librdmacm.rdma_disconnect(state, required(id, "rdma_disconnect", "id")),
                state);
    }

    /**
     * {@code rdma_get_cm_event(3)}: the next event, decoded; blocks unless the channel's fd is
     * non-blocking, where an empty channel answers {@code EAGAIN}. The event must be acked with
     * {@link #ackEvent} before its id can be destroyed.
     */
    CmEvent getEvent(MemorySegment channel) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment state = CallState.current();
            check("rdma_get_cm_event", "event channel fd " + fd(channel),
                    Librdmacm.rdma_get_cm_event(state, required(channel, "rdma_get_cm_event", "channel"), out), state);
            return CmEvent.decode(out.get(ADDRESS, 0));
        }
    }

    /** {@code rdma_ack_cm_event(3)}: frees the event and its private data. */
    void ackEvent(CmEvent event) {
        MemorySegment state = CallState.current();
        check("rdma_ack_cm_event", event.type().cName(), Librdmacm.rdma_ack_cm_event(state, event.event()), state);
    }

    /**
     * {@code rdma_create_qp(3)}: {@code initAttr} is an {@code ibv_qp_init_attr_ex} (its first members are
     * the {@code ibv_qp_init_attr} the call reads); {@code pd} and the CQs must be of {@code id->verbs}.
     */
    MemorySegment createQp(MemorySegment id, MemorySegment pd, MemorySegment initAttr) {
        MemorySegment state = CallState.current();
        MemorySegment cmId = required(id, "rdma_create_qp", "id");
        check("rdma_create_qp", describe(id), Librdmacm.rdma_create_qp(state, cmId, pd, initAttr), state);
        return RdmaCmId.QP.get(cmId.reinterpret(RdmaCmId.LAYOUT.byteSize()));
    }

    /** {@code rdma_destroy_qp(3)}: void, so an {@code ibv_destroy_qp} failure is lost; see docs/ffm.md. */
    void destroyQp(MemorySegment id) {
        Librdmacm.rdma_destroy_qp(required(id, "rdma_destroy_qp", "id"));
    }

    /** {@code rdma_migrate_id(3)}: moves the id, and its future events, to {@code channel}. */
    void migrateId(MemorySegment id, MemorySegment channel) {
        MemorySegment state = CallState.current();
        check("rdma_migrate_id", describe(id), Librdmacm.rdma_migrate_id(state, required(id, "rdma_migrate_id", "id"),
                required(channel, "rdma_migrate_id", "channel")), state);
    }

    /**
     * {@code rdma_get_devices(3)}: the {@code ibv_context}s librdmacm opened itself, copied out before the
     * list is freed. They are librdmacm's: never {@code ibv_close_device} them.
     */
    List<MemorySegment> devices() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment state = CallState.current();
            MemorySegment list = Librdmacm.rdma_get_devices(state, count);
            if (list.equals(MemorySegment.NULL)) {
                throw failure("rdma_get_devices", "librdmacm", CallState.errno(state));
            }
            try {
                int n = count.get(JAVA_INT, 0);
                MemorySegment entries = list.reinterpret(ADDRESS.byteSize() * n);
                List<MemorySegment> contexts = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    contexts.add(entries.getAtIndex(ADDRESS, i));
                }
                return List.copyOf(contexts);
            } finally {
                Librdmacm.rdma_free_devices(list);
            }
        }
    }

    /** {@code rdma_event_str(3)}: {@code "RDMA_CM_EVENT_..."}, or {@code "UNKNOWN EVENT"}. */
    String eventName(int type) {
        return Librdmacm.rdma_event_str(type).reinterpret(Long.MAX_VALUE).getString(0);
    }

    /** {@code rdma_get_local_addr}: what the id is bound to, empty before a bind or resolve. */
    static Optional<InetSocketAddress> localAddress(MemorySegment id) {
        return Sockaddr.decode(id.reinterpret(RdmaCmId.LAYOUT.byteSize())
                .asSlice(RdmaCmId.SRC_ADDR, SockaddrStorage.LAYOUT.byteSize()));
    }

    /** {@code rdma_get_peer_addr}: the destination resolved or the peer of a request, empty before. */
    static Optional<InetSocketAddress> peerAddress(MemorySegment id) {
        return Sockaddr.decode(id.reinterpret(RdmaCmId.LAYOUT.byteSize())
                .asSlice(RdmaCmId.DST_ADDR, SockaddrStorage.LAYOUT.byteSize()));
    }

    private static MemorySegment required(MemorySegment pointer, String verb, String what) {
        if (pointer.equals(MemorySegment.NULL)) {
            throw new IllegalArgumentException(verb + ": " + what + " is NULL");
        }
        return pointer;
    }

    /**
     * The id as error messages name it: address, port space and what it is bound and connected to, e.g.
     * {@code rdma_cm_id@0x5581c0 (RDMA_PS_TCP, [fe80::1%dummy0]:7471 -> [fe80::1%dummy0]:43211)}.
     */
    static String describe(MemorySegment id) {
        if (id.equals(MemorySegment.NULL)) {
            return "rdma_cm_id NULL";
        }
        int ps = RdmaCmId.PS.get(id.reinterpret(RdmaCmId.LAYOUT.byteSize()));
        String space = switch (ps) {
            case RdmaCmId.RDMA_PS_TCP -> "RDMA_PS_TCP";
            case RdmaCmId.RDMA_PS_UDP -> "RDMA_PS_UDP";
            case RdmaCmId.RDMA_PS_IB -> "RDMA_PS_IB";
            case RdmaCmId.RDMA_PS_IPOIB -> "RDMA_PS_IPOIB";
            default -> "port space 0x" + Integer.toHexString(ps);
        };
        StringBuilder name = new StringBuilder("rdma_cm_id@0x").append(Long.toHexString(id.address()))
                .append(" (").append(space);
        try {
            localAddress(id).ifPresent(local -> name.append(", ").append(local));
            peerAddress(id).ifPresent(peer -> name.append(" -> ").append(peer));
        } catch (IllegalArgumentException e) {
            // AF_IB or another family the binding does not decode: the address and port space still name it.
        }
        return name.append(')').toString();
    }

    private static void check(String verb, String resource, int rc, MemorySegment state) {
        if (rc != 0) {
            throw failure(verb, resource, CallState.errno(state));
        }
    }

    /** librdmacm returns -1 and sets errno; ENODEV without the kernel module says which module to load. */
    static VerbsException failure(String verb, String resource, int errno) {
        Errno e = Errno.of(errno > 0 ? errno : Errno.EIO.number());
        String reason;
        if (e.equals(Errno.ENODEV) && !Files.exists(UCMA_ABI_VERSION)) {
            reason = "the rdma_ucm kernel module is not loaded (" + UCMA_ABI_VERSION + " is missing), so there is no "
                    + "/dev/infiniband/rdma_cm; load it with 'modprobe rdma_ucm' on a host with an RDMA device";
        } else if (e.equals(Errno.ENODEV)) {
            reason = "no RDMA device serves this address (rdma_cm(7) maps addresses to devices by their netdev)";
        } else {
            reason = "see " + verb + "(3)";
        }
        return new VerbsException(verb, resource, e, reason);
    }
}
