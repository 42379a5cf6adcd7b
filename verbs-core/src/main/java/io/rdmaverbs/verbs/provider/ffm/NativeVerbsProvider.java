package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.SIZE_T;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.Errno;
import io.rdmaverbs.verbs.VerbsException;
import io.rdmaverbs.verbs.WorkCompletions;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.GlobalRoute;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.attr.QpAttributeMask;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.Handle;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException.Reason;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.jspecify.annotations.Nullable;

/**
 * The verbs on the real {@code libibverbs.so.1}, through {@code java.lang.foreign}.
 *
 * <p>Obtained with {@link #load()} (the library named by the system property {@value #LIBRARY_PROPERTY},
 * else {@code libibverbs.so.1} from the dynamic linker) or {@link #load(Path)}. Loading never fails
 * with a linkage error: it throws {@link ProviderUnavailableException} saying what to install or
 * which flag to add. {@link #availability()} reports the same without throwing. One libibverbs per
 * process: every load returns the same provider, and asking for a different library once one is
 * loaded is refused.
 *
 * <p>The data path ({@link #pollCq}, {@link #reqNotifyCq}, {@link #postSend}, {@link #postRecv},
 * {@link #postSrqRecv}) allocates nothing: it works on the off-heap structs of
 * {@link #newWorkCompletions}, {@link #newSendWr} and {@link #newRecvWr}, calls the provider's op
 * pointers read once per CQ, QP or SRQ, and uses a per-thread errno slot.
 *
 * <p>{@code ibv_destroy_cq} blocks inside libibverbs until every completion event returned by
 * {@link #getCqEvent} for that CQ has been acknowledged. This provider does nothing about it: the
 * resource graph never destroys a CQ with events outstanding.
 */
public final class NativeVerbsProvider implements VerbsProvider {

    /** System property naming the {@code libibverbs.so.1} file to load. */
    public static final String LIBRARY_PROPERTY = Libibverbs.LIBRARY_PROPERTY;

    /**
     * Whether the native provider can be used in this JVM, for health checks and diagnostics.
     *
     * @param reason why not, or {@code null} when available
     * @param message where the library was loaded from, or what to do to make it loadable
     */
    public record Availability(boolean available, ProviderUnavailableException.@Nullable Reason reason,
            String message) {

        static Availability of(String message) {
            return new Availability(true, null, message);
        }

        static Availability unavailable(ProviderUnavailableException e) {
            return new Availability(false, e.reason(), Objects.requireNonNullElse(e.getMessage(), e.reason().name()));
        }
    }

    /* The errno values this provider acts on rather than reports. */
    private static final int EAGAIN = Errno.EAGAIN.number();
    private static final int EINTR = Errno.EINTR.number();
    /** {@code IBV_ACCESS_OPTIONAL_RANGE}: access flags only {@code ibv_reg_mr_iova2} understands. */
    static final int IBV_ACCESS_OPTIONAL_RANGE = 0x3ff0_0000;
    private static final int QUERY_QP_MASK = QpAttributeMask.mask(EnumSet.of(QpAttributeMask.STATE,
            QpAttributeMask.PKEY_INDEX, QpAttributeMask.PORT, QpAttributeMask.QKEY, QpAttributeMask.PATH_MTU,
            QpAttributeMask.DEST_QPN, QpAttributeMask.RQ_PSN, QpAttributeMask.SQ_PSN, QpAttributeMask.ACCESS_FLAGS,
            QpAttributeMask.CAP));

    private static @Nullable NativeVerbsProvider instance;

    private final String library;
    /* Address -> handle, to turn the pointers in CQ and async events back into the caller's handles. */
    private final Map<Long, NativeCq> cqs = new ConcurrentHashMap<>();
    private final Map<Long, NativeQp> qps = new ConcurrentHashMap<>();
    private final Map<Long, NativeSrq> srqs = new ConcurrentHashMap<>();

    private NativeVerbsProvider(String library) {
        this.library = library;
    }

    // ---- loading --------------------------------------------------------------------------------

    /**
     * The provider on the configured library: the file named by {@value #LIBRARY_PROPERTY}, else
     * {@code libibverbs.so.1} found by the dynamic linker. Once a library is loaded, returns its
     * provider unless the property names another file.
     *
     * @throws ProviderUnavailableException when the library cannot be used in this JVM
     * @throws IllegalStateException when another libibverbs is already loaded
     */
    public static NativeVerbsProvider load() {
        String configured = System.getProperty(LIBRARY_PROPERTY);
        if (configured == null || configured.isBlank()) {
            return open(null, "found by the dynamic linker");
        }
        String origin = "system property " + LIBRARY_PROPERTY;
        try {
            return open(Path.of(configured.trim()), origin);
        } catch (InvalidPathException e) {
            throw new ProviderUnavailableException(Reason.LIBRARY_NOT_FOUND, "'" + configured + "' (" + origin
                    + ") is not a valid path: " + e.getMessage(), e);
        }
    }

    /**
     * The provider on the library at {@code libraryPath}.
     *
     * @throws ProviderUnavailableException when the library cannot be used in this JVM
     * @throws IllegalStateException when a different libibverbs is already loaded
     */
    public static NativeVerbsProvider load(Path libraryPath) {
        return open(Objects.requireNonNull(libraryPath, "libraryPath"),
                "the configured library path, e.g. rdma.verbs.native.library-path");
    }

    /**
     * Whether {@link #load()} succeeds, without throwing; loads the library as a side effect when it
     * is not loaded yet.
     */
    public static Availability availability() {
        NativeVerbsProvider loaded = loaded();
        if (loaded == null) {
            try {
                loaded = load();
            } catch (ProviderUnavailableException e) {
                return Availability.unavailable(e);
            }
        }
        return Availability.of("libibverbs loaded from " + loaded.library);
    }

    private static synchronized @Nullable NativeVerbsProvider loaded() {
        return instance;
    }

    private static synchronized NativeVerbsProvider open(@Nullable Path path, String origin) {
        NativeVerbsProvider loaded = instance;
        if (loaded != null) {
            if (path == null || isSameFile(path, loaded.library)) {
                return loaded;
            }
            throw new IllegalStateException("libibverbs is already loaded in this JVM from " + loaded.library
                    + "; it cannot also be loaded from " + path + " (" + origin + "): one libibverbs per process. "
                    + "Configure the same library everywhere, or restart the JVM.");
        }
        String unsupported = Platform.unsupportedReason();
        if (unsupported != null) {
            throw new ProviderUnavailableException(Reason.UNSUPPORTED_PLATFORM,
                    unsupported + ". Use the simulated provider on this platform.");
        }
        instance = new NativeVerbsProvider(Libibverbs.open(path, origin));
        return instance;
    }

    private static boolean isSameFile(Path path, String loadedFrom) {
        try {
            return Files.isSameFile(path, Path.of(loadedFrom));
        } catch (IOException | InvalidPathException e) {
            return false;
        }
    }

    @Override
    public String name() {
        return "native";
    }

    @Override
    public String toString() {
        return "NativeVerbsProvider[" + library + "]";
    }

    // ---- devices --------------------------------------------------------------------------------

    @Override
    public List<DeviceInfo> devices() {
        List<DeviceInfo> devices = new ArrayList<>();
        DeviceList.forEach((device, info) -> {
            devices.add(info);
            return false;
        });
        return List.copyOf(devices);
    }

    @Override
    public ContextHandle openDevice(DeviceInfo device) {
        MemorySegment state = CallState.current();
        List<String> present = new ArrayList<>();
        NativeContext[] opened = new NativeContext[1];
        DeviceList.forEach((pointer, info) -> {
            if (!info.name().equals(device.name())) {
                present.add(info.name());
                return false;
            }
            // Opened before the list is freed: an opened device outlives ibv_free_device_list.
            opened[0] = open(pointer, info, state);
            return true;
        });
        if (opened[0] != null) {
            return opened[0];
        }
        throw new VerbsException("ibv_open_device", device.name(), Errno.ENODEV, "no RDMA device named "
                + device.name() + " on this host" + (present.isEmpty()
                        ? ": there are none (is an RDMA driver loaded? for soft-RoCE: modprobe rdma_rxe; "
                                + "rdma link add rxe0 type rxe netdev <interface>)"
                        : "; devices present: " + present));
    }

    private NativeContext open(MemorySegment device, DeviceInfo info, MemorySegment state) {
        MemorySegment context = Libibverbs.ibv_open_device(state, device);
        if (isNull(context)) {
            int errno = errnoOfNull(state);
            throw new VerbsException("ibv_open_device", info.name(), Errno.of(errno),
                    "could not open " + info.name() + permissionHint(errno));
        }
        MemorySegment fields = context.reinterpret(IbvContext.LAYOUT.byteSize());
        NativeContext handle = new NativeContext(this, context, info, fields.get(C_INT, IbvContext.NUM_COMP_VECTORS),
                fields.get(C_INT, IbvContext.ASYNC_FD));
        // getAsyncEvent polls async_fd with a timeout, then reads; the read must never block.
        int errno = EventDescriptors.makeNonBlocking(handle.asyncFd(), state);
        if (errno != 0) {
            Libibverbs.ibv_close_device(state, context);
            throw new VerbsException("fcntl", handle.describe(), Errno.of(errno),
                    "could not make the async event descriptor of " + info.name() + " non-blocking");
        }
        return handle;
    }

    @Override
    public void closeDevice(ContextHandle context) {
        NativeContext c = live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        released("ibv_close_device", c, Libibverbs.ibv_close_device(state, c.pointer()), state,
                "could not close " + c.deviceName(),
                "could not close " + c.deviceName());
        // Whatever the graph left behind is gone with the context; its addresses may be reused.
        cqs.values().removeIf(cq -> cq.context() == c);
        qps.values().removeIf(qp -> qp.context() == c);
        srqs.values().removeIf(srq -> srq.context() == c);
    }

    @Override
    public DeviceAttributes queryDevice(ContextHandle context) {
        NativeContext c = live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvDeviceAttr.LAYOUT);
            int errno = returned(Libibverbs.ibv_query_device(state, c.pointer(), a), state);
            if (errno != 0) {
                throw failure("ibv_query_device", c, errno, "could not query " + c.deviceName());
            }
            return new DeviceAttributes(
                    Layouts.cString(a.asSlice(IbvDeviceAttr.FW_VER, 64), 64),
                    a.get(Layouts.BE64, IbvDeviceAttr.NODE_GUID),
                    a.get(Layouts.BE64, IbvDeviceAttr.SYS_IMAGE_GUID),
                    a.get(U64, IbvDeviceAttr.MAX_MR_SIZE),
                    a.get(U64, IbvDeviceAttr.PAGE_SIZE_CAP),
                    a.get(U32, IbvDeviceAttr.VENDOR_ID),
                    a.get(U32, IbvDeviceAttr.VENDOR_PART_ID),
                    a.get(U32, IbvDeviceAttr.HW_VER),
                    a.get(C_INT, IbvDeviceAttr.MAX_QP),
                    a.get(C_INT, IbvDeviceAttr.MAX_QP_WR),
                    a.get(U32, IbvDeviceAttr.DEVICE_CAP_FLAGS),
                    a.get(C_INT, IbvDeviceAttr.MAX_SGE),
                    a.get(C_INT, IbvDeviceAttr.MAX_CQ),
                    a.get(C_INT, IbvDeviceAttr.MAX_CQE),
                    a.get(C_INT, IbvDeviceAttr.MAX_MR),
                    a.get(C_INT, IbvDeviceAttr.MAX_PD),
                    a.get(C_INT, IbvDeviceAttr.MAX_QP_RD_ATOM),
                    a.get(C_INT, IbvDeviceAttr.MAX_QP_INIT_RD_ATOM),
                    a.get(C_INT, IbvDeviceAttr.MAX_AH),
                    a.get(C_INT, IbvDeviceAttr.MAX_SRQ),
                    a.get(C_INT, IbvDeviceAttr.MAX_SRQ_WR),
                    a.get(C_INT, IbvDeviceAttr.MAX_SRQ_SGE),
                    a.get(C_INT, IbvDeviceAttr.MAX_MCAST_GRP),
                    a.get(C_INT, IbvDeviceAttr.MAX_MCAST_QP_ATTACH),
                    Byte.toUnsignedInt(a.get(U8, IbvDeviceAttr.PHYS_PORT_CNT)),
                    c.numCompVectors());
        }
    }

    @Override
    public PortAttributes queryPort(ContextHandle context, int port) {
        NativeContext c = live(context, NativeContext.class);
        requirePort("ibv_query_port", c, port);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvPortAttr.LAYOUT);
            int errno = returned(InlineVerbs.ibv_query_port(state, c.pointer(), (byte) port, a), state);
            if (errno != 0) {
                throw failure("ibv_query_port", c, errno, Errno.of(errno).equals(Errno.EINVAL)
                        ? c.deviceName() + " has no port " + port + " (ports are numbered from 1 to phys_port_cnt)"
                        : "could not query port " + port + " of " + c.deviceName());
            }
            return new PortAttributes(
                    port,
                    PortState.of(a.get(C_ENUM, IbvPortAttr.STATE)),
                    mtu(a.get(C_ENUM, IbvPortAttr.MAX_MTU)),
                    mtu(a.get(C_ENUM, IbvPortAttr.ACTIVE_MTU)),
                    a.get(C_INT, IbvPortAttr.GID_TBL_LEN),
                    a.get(U32, IbvPortAttr.PORT_CAP_FLAGS),
                    a.get(U32, IbvPortAttr.MAX_MSG_SZ),
                    Short.toUnsignedInt(a.get(U16, IbvPortAttr.PKEY_TBL_LEN)),
                    Short.toUnsignedInt(a.get(U16, IbvPortAttr.LID)),
                    Short.toUnsignedInt(a.get(U16, IbvPortAttr.SM_LID)),
                    Byte.toUnsignedInt(a.get(U8, IbvPortAttr.LMC)),
                    Byte.toUnsignedInt(a.get(U8, IbvPortAttr.ACTIVE_WIDTH)),
                    Byte.toUnsignedInt(a.get(U8, IbvPortAttr.ACTIVE_SPEED)),
                    Byte.toUnsignedInt(a.get(U8, IbvPortAttr.PHYS_STATE)),
                    LinkLayer.of(Byte.toUnsignedInt(a.get(U8, IbvPortAttr.LINK_LAYER))));
        }
    }

    @Override
    public Gid queryGid(ContextHandle context, int port, int index) {
        NativeContext c = live(context, NativeContext.class);
        requirePort("ibv_query_gid", c, port);
        if (index < 0) {
            throw failure("ibv_query_gid", c, Errno.EINVAL.number(), "GID index must be >= 0, was " + index);
        }
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment gid = arena.allocate(Layouts.GID);
            int errno = returned(Libibverbs.ibv_query_gid(state, c.pointer(), (byte) port, index, gid), state);
            if (errno != 0) {
                throw failure("ibv_query_gid", c, errno, "could not read GID " + index + " of port " + port + " of "
                        + c.deviceName() + " (the index must be below gid_tbl_len of ibv_query_port)");
            }
            return Gid.of(gid.toArray(JAVA_BYTE));
        }
    }

    // ---- protection and XRC domains -------------------------------------------------------------

    @Override
    public PdHandle allocPd(ContextHandle context) {
        NativeContext c = live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        MemorySegment pd = Libibverbs.ibv_alloc_pd(state, c.pointer());
        if (isNull(pd)) {
            throw failure("ibv_alloc_pd", c, errnoOfNull(state), "could not allocate a protection domain on "
                    + c.deviceName());
        }
        return new NativePd(this, pd, c);
    }

    @Override
    public void deallocPd(PdHandle pd) {
        NativePd p = live(pd, NativePd.class);
        MemorySegment state = CallState.current();
        released("ibv_dealloc_pd", p, Libibverbs.ibv_dealloc_pd(state, p.pointer()), state,
                "QPs, SRQs, MRs or address handles still use it: destroy them first",
                "could not deallocate the protection domain");
    }

    @Override
    public int openFile(Path file, boolean create) {
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            int flags = Libc.O_RDONLY | (create ? Libc.O_CREAT : 0);
            int fd = Libc.open(state, arena.allocateFrom(file.toString()), flags, 0600);
            if (fd < 0) {
                int errno = CallState.errno(state);
                throw new VerbsException("open", file.toString(), Errno.of(errno), "could not open " + file
                        + (create ? " (creating it if missing)" : " (it must exist: create=false)")
                        + " to name a shared XRC domain");
            }
            return fd;
        }
    }

    @Override
    public void closeFile(int fd) {
        MemorySegment state = CallState.current();
        if (Libc.close(state, fd) != 0) {
            throw new VerbsException("close", "fd " + fd, Errno.of(CallState.errno(state)),
                    "could not close descriptor " + fd);
        }
    }

    @Override
    public XrcdHandle openXrcd(ContextHandle context, int fd, int oflags) {
        NativeContext c = live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvXrcdInitAttr.LAYOUT);
            attr.set(U32, IbvXrcdInitAttr.COMP_MASK,
                    IbvXrcdInitAttr.IBV_XRCD_INIT_ATTR_FD | IbvXrcdInitAttr.IBV_XRCD_INIT_ATTR_OFLAGS);
            attr.set(C_INT, IbvXrcdInitAttr.FD, fd);
            attr.set(C_INT, IbvXrcdInitAttr.OFLAGS, oflags);
            MemorySegment xrcd = InlineVerbs.ibv_open_xrcd(state, c.pointer(), attr);
            if (isNull(xrcd)) {
                int errno = errnoOfNull(state);
                Errno e = Errno.of(errno);
                String why;
                if (e.equals(Errno.EOPNOTSUPP)) {
                    why = "device " + c.deviceName() + " does not support XRC (IBV_DEVICE_XRC not set)";
                } else if (e.equals(Errno.EEXIST)) {
                    why = "an XRC domain for the file of fd " + fd + " already exists and O_EXCL was given";
                } else if (e.equals(Errno.ENOENT) || e.equals(Errno.EINVAL) && (oflags & Libc.O_CREAT) == 0) {
                    why = "no XRC domain exists for the file of fd " + fd + " yet: open it with O_CREAT";
                } else if (e.equals(Errno.EBADF)) {
                    why = "fd " + fd + " is not an open descriptor";
                } else {
                    why = "could not open an XRC domain on " + c.deviceName();
                }
                throw failure("ibv_open_xrcd", c, errno, why);
            }
            return new NativeXrcd(this, xrcd, c);
        }
    }

    @Override
    public void closeXrcd(XrcdHandle xrcd) {
        NativeXrcd x = live(xrcd, NativeXrcd.class);
        MemorySegment state = CallState.current();
        released("ibv_close_xrcd", x, InlineVerbs.ibv_close_xrcd(state, x.pointer()), state,
                "XRC QPs or SRQs of this process still use it: destroy them first",
                "could not close the XRC domain");
    }

    // ---- completion channels and CQs --------------------------------------------------------------

    @Override
    public CompChannelHandle createCompChannel(ContextHandle context) {
        NativeContext c = live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        MemorySegment channel = Libibverbs.ibv_create_comp_channel(state, c.pointer());
        if (isNull(channel)) {
            throw failure("ibv_create_comp_channel", c, errnoOfNull(state),
                    "could not create a completion channel on " + c.deviceName());
        }
        int fd = channel.reinterpret(IbvCompChannel.LAYOUT.byteSize()).get(C_INT, IbvCompChannel.FD);
        NativeCompChannel handle = new NativeCompChannel(this, channel, c, fd);
        // getCqEvent polls the descriptor with a timeout, then reads; the read must never block.
        int errno = EventDescriptors.makeNonBlocking(fd, state);
        if (errno != 0) {
            Libibverbs.ibv_destroy_comp_channel(state, channel);
            throw new VerbsException("fcntl", handle.describe(), Errno.of(errno),
                    "could not make the completion channel's descriptor " + fd + " non-blocking");
        }
        return handle;
    }

    @Override
    public void destroyCompChannel(CompChannelHandle channel) {
        NativeCompChannel ch = live(channel, NativeCompChannel.class);
        MemorySegment state = CallState.current();
        released("ibv_destroy_comp_channel", ch, Libibverbs.ibv_destroy_comp_channel(state, ch.pointer()), state,
                "a CQ still reports to it: destroy the CQs first",
                "could not destroy the completion channel");
    }

    @Override
    public CqHandle createCq(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector) {
        NativeContext c = live(context, NativeContext.class);
        NativeCompChannel ch = channel == null ? null : live(channel, NativeCompChannel.class);
        MemorySegment state = CallState.current();
        MemorySegment cq = Libibverbs.ibv_create_cq(state, c.pointer(), cqe, MemorySegment.NULL,
                ch == null ? MemorySegment.NULL : ch.pointer(), compVector);
        if (isNull(cq)) {
            int errno = errnoOfNull(state);
            throw failure("ibv_create_cq", c, errno, Errno.of(errno).equals(Errno.EINVAL)
                    ? "cqe " + cqe + " must be 1..max_cqe of the device and comp_vector " + compVector
                            + " below num_comp_vectors (" + c.numCompVectors() + ")"
                    : "could not create a CQ of " + cqe + " entries on " + c.deviceName() + memlockHint(errno));
        }
        int capacity = cq.reinterpret(IbvCq.LAYOUT.byteSize()).get(C_INT, IbvCq.CQE);
        NativeCq handle = new NativeCq(this, cq, c, capacity, ch,
                InlineVerbs.contextOp(cq, IbvCq.CONTEXT, IbvContextOps.POLL_CQ),
                InlineVerbs.contextOp(cq, IbvCq.CONTEXT, IbvContextOps.REQ_NOTIFY_CQ));
        cqs.put(cq.address(), handle);
        return handle;
    }

    @Override
    public void destroyCq(CqHandle cq) {
        NativeCq q = live(cq, NativeCq.class);
        MemorySegment state = CallState.current();
        released("ibv_destroy_cq", q, Libibverbs.ibv_destroy_cq(state, q.pointer()), state,
                "QPs or SRQs still use it: destroy them first",
                "could not destroy the CQ");
        cqs.remove(q.pointer().address(), q);
    }

    @Override
    public void reqNotifyCq(CqHandle cq, boolean solicitedOnly) {
        NativeCq q = live(cq, NativeCq.class);
        requireOp("ibv_req_notify_cq", q, q.reqNotifyCq());
        MemorySegment state = CallState.current();
        int rc = InlineVerbs.ibv_req_notify_cq(q.reqNotifyCq(), state, q.pointer(), solicitedOnly ? 1 : 0);
        if (rc != 0) {
            throw failure("ibv_req_notify_cq", q, returned(rc, state), "could not arm the CQ for an event");
        }
    }

    @Override
    public int pollCq(CqHandle cq, WorkCompletions completions, int max) {
        NativeCq q = live(cq, NativeCq.class);
        if (!(completions instanceof NativeWorkCompletions wc)) {
            throw new IllegalArgumentException(completions + " was not created by the native provider "
                    + "(use newWorkCompletions)");
        }
        if (wc.isClosed()) {
            throw new IllegalStateException(wc + " was already closed");
        }
        if (max < 0 || max > wc.capacity()) {
            throw new IllegalArgumentException("max must be 0.." + wc.capacity() + ", was " + max);
        }
        requireOp("ibv_poll_cq", q, q.pollCq());
        int n = InlineVerbs.ibv_poll_cq(q.pollCq(), q.pointer(), max, wc.entries());
        if (n < 0) {
            // poll_cq reports errors by a negative count and no errno.
            throw new VerbsException("ibv_poll_cq", q.describe(), null, "the provider returned " + n
                    + ": the CQ is in error (overrun?) and can only be destroyed");
        }
        return n;
    }

    @Override
    public WorkCompletions newWorkCompletions(int capacity) {
        return new NativeWorkCompletions(capacity);
    }

    @Override
    public @Nullable CqHandle getCqEvent(CompChannelHandle channel, long timeoutMillis) {
        NativeCompChannel ch = live(channel, NativeCompChannel.class);
        MemorySegment state = CallState.current();
        long deadline = EventDescriptors.deadline(timeoutMillis);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollFd = arena.allocate(PollFd.LAYOUT);
            MemorySegment cqOut = arena.allocate(ADDRESS);
            MemorySegment cqContextOut = arena.allocate(ADDRESS);
            while (true) {
                if (!EventDescriptors.awaitReadable(ch, ch.fd(), pollFd, deadline, state)) {
                    return null;
                }
                if (Libibverbs.ibv_get_cq_event(state, ch.pointer(), cqOut, cqContextOut) == 0) {
                    break;
                }
                int errno = CallState.errno(state);
                if (errno != EAGAIN && errno != EINTR) {
                    throw failure("ibv_get_cq_event", ch, errno, "could not read a completion event");
                }
                // EAGAIN: another thread read the event between poll and read; wait for the next one.
            }
            MemorySegment cq = cqOut.get(ADDRESS, 0);
            NativeCq handle = cqs.get(cq.address());
            if (handle == null) {
                // Acked so that whoever owns that CQ can still destroy it.
                Libibverbs.ibv_ack_cq_events(cq, 1);
                throw new IllegalStateException("completion event on " + ch.describe() + " for ibv_cq@0x"
                        + Long.toHexString(cq.address()) + ", which this provider did not create");
            }
            return handle;
        }
    }

    @Override
    public void ackCqEvents(CqHandle cq, int count) {
        NativeCq q = live(cq, NativeCq.class);
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, was " + count);
        }
        Libibverbs.ibv_ack_cq_events(q.pointer(), count);
    }

    // ---- shared receive queues ------------------------------------------------------------------

    @Override
    public SrqHandle createSrq(ContextHandle context, SrqInitSpec spec) {
        NativeContext c = live(context, NativeContext.class);
        NativePd pd = live(spec.pd(), NativePd.class);
        boolean xrc = spec.type() == SrqType.XRC;
        NativeXrcd xrcd = null;
        NativeCq cq = null;
        if (xrc) {
            xrcd = live(required(spec.xrcd(), "an XRC SRQ needs an XRC domain"), NativeXrcd.class);
            cq = live(required(spec.cq(), "an XRC SRQ needs a CQ"), NativeCq.class);
        }
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvSrqInitAttrEx.LAYOUT);
            attr.set(U32, IbvSrqInitAttrEx.ATTR + IbvSrqAttr.MAX_WR, spec.maxWr());
            attr.set(U32, IbvSrqInitAttrEx.ATTR + IbvSrqAttr.MAX_SGE, spec.maxSge());
            attr.set(U32, IbvSrqInitAttrEx.ATTR + IbvSrqAttr.SRQ_LIMIT, spec.limit());
            int mask = IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_TYPE | IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_PD;
            attr.set(ADDRESS, IbvSrqInitAttrEx.PD, pd.pointer());
            if (xrc) {
                mask |= IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_XRCD | IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_CQ;
                attr.set(ADDRESS, IbvSrqInitAttrEx.XRCD, xrcd.pointer());
                attr.set(ADDRESS, IbvSrqInitAttrEx.CQ, cq.pointer());
            }
            attr.set(U32, IbvSrqInitAttrEx.COMP_MASK, mask);
            attr.set(C_ENUM, IbvSrqInitAttrEx.SRQ_TYPE,
                    xrc ? IbvSrqInitAttrEx.IBV_SRQT_XRC : IbvSrqInitAttrEx.IBV_SRQT_BASIC);
            MemorySegment srq = InlineVerbs.ibv_create_srq_ex(state, c.pointer(), attr);
            if (isNull(srq)) {
                int errno = errnoOfNull(state);
                Errno e = Errno.of(errno);
                throw failure(xrc ? "ibv_create_srq_ex" : "ibv_create_srq", c, errno, e.equals(Errno.EOPNOTSUPP) && xrc
                        ? "device " + c.deviceName() + " does not support XRC (IBV_DEVICE_XRC not set)"
                        : e.equals(Errno.EINVAL)
                                ? "max_wr " + spec.maxWr() + ", max_sge " + spec.maxSge() + " or limit " + spec.limit()
                                        + " is beyond max_srq_wr / max_srq_sge of the device"
                                : "could not create an SRQ on " + c.deviceName() + memlockHint(errno));
            }
            int srqNum = 0;
            if (xrc) {
                MemorySegment number = arena.allocate(U32);
                int errno = returned(InlineVerbs.ibv_get_srq_num(state, srq, number), state);
                if (errno != 0) {
                    Libibverbs.ibv_destroy_srq(state, srq);
                    throw failure("ibv_get_srq_num", c, errno, "could not read the number of the new XRC SRQ");
                }
                srqNum = number.get(U32, 0);
            }
            NativeSrq handle = new NativeSrq(this, srq, c, srqNum,
                    InlineVerbs.contextOp(srq, IbvSrq.CONTEXT, IbvContextOps.POST_SRQ_RECV));
            srqs.put(srq.address(), handle);
            return handle;
        }
    }

    @Override
    public void destroySrq(SrqHandle srq) {
        NativeSrq s = live(srq, NativeSrq.class);
        MemorySegment state = CallState.current();
        released("ibv_destroy_srq", s, Libibverbs.ibv_destroy_srq(state, s.pointer()), state,
                "QPs still receive through it: destroy them first",
                "could not destroy the SRQ");
        srqs.remove(s.pointer().address(), s);
    }

    @Override
    public void postSrqRecv(SrqHandle srq, RecvWr request) {
        NativeSrq s = live(srq, NativeSrq.class);
        NativeRecvWr wr = own(request);
        requireOp("ibv_post_srq_recv", s, s.postSrqRecv());
        MemorySegment state = wr.callState();
        int rc = InlineVerbs.ibv_post_srq_recv(s.postSrqRecv(), state, s.pointer(), wr.wr(), wr.badWr());
        if (rc != 0) {
            int errno = returned(rc, state);
            throw failure("ibv_post_srq_recv", s, errno, postHint(errno, "max_wr of the SRQ", "max_sge of the SRQ"));
        }
    }

    // ---- queue pairs ----------------------------------------------------------------------------

    @Override
    public QpHandle createQp(ContextHandle context, QpInitSpec spec) {
        NativeContext c = live(context, NativeContext.class);
        QpType type = spec.type();
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvQpInitAttrEx.LAYOUT);
            if (type == QpType.XRC_RECV) {
                NativeXrcd xrcd = live(required(spec.xrcd(), "an XRC_RECV QP needs an XRC domain"),
                        NativeXrcd.class);
                attr.set(U32, IbvQpInitAttrEx.COMP_MASK, IbvQpInitAttrEx.IBV_QP_INIT_ATTR_XRCD);
                attr.set(ADDRESS, IbvQpInitAttrEx.XRCD, xrcd.pointer());
            } else {
                NativePd pd = live(required(spec.pd(), "a " + type + " QP needs a protection domain"),
                        NativePd.class);
                attr.set(U32, IbvQpInitAttrEx.COMP_MASK, IbvQpInitAttrEx.IBV_QP_INIT_ATTR_PD);
                attr.set(ADDRESS, IbvQpInitAttrEx.PD, pd.pointer());
                attr.set(ADDRESS, IbvQpInitAttrEx.SEND_CQ, pointerOf(spec.sendCq(), NativeCq.class));
                attr.set(ADDRESS, IbvQpInitAttrEx.RECV_CQ, pointerOf(spec.recvCq(), NativeCq.class));
                attr.set(ADDRESS, IbvQpInitAttrEx.SRQ, pointerOf(spec.srq(), NativeSrq.class));
            }
            IbvQpCap.write(attr, IbvQpInitAttrEx.CAP, spec.capabilities());
            attr.set(C_ENUM, IbvQpInitAttrEx.QP_TYPE, type.value());
            attr.set(C_INT, IbvQpInitAttrEx.SQ_SIG_ALL, spec.signalAll() ? 1 : 0);
            MemorySegment qp = InlineVerbs.ibv_create_qp_ex(state, c.pointer(), attr);
            if (isNull(qp)) {
                int errno = errnoOfNull(state);
                Errno e = Errno.of(errno);
                throw failure("ibv_create_qp_ex", c, errno, e.equals(Errno.EOPNOTSUPP) && type.isXrc()
                        ? "device " + c.deviceName() + " does not support XRC (IBV_DEVICE_XRC not set)"
                        : e.equals(Errno.EINVAL)
                                ? "a " + type + " QP with " + spec.capabilities() + " was refused: check the send and "
                                        + "receive CQs are given and the sizes are within max_qp_wr / max_sge"
                                : "could not create a " + type + " QP on " + c.deviceName() + memlockHint(errno));
            }
            QpCapabilities granted = IbvQpCap.read(attr, IbvQpInitAttrEx.CAP);
            return register(qp, c, type, granted);
        }
    }

    @Override
    public QpHandle openQp(ContextHandle context, XrcdHandle xrcd, int qpNum, QpType type) {
        NativeContext c = live(context, NativeContext.class);
        NativeXrcd x = live(xrcd, NativeXrcd.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvQpOpenAttr.LAYOUT);
            attr.set(U32, IbvQpOpenAttr.COMP_MASK, IbvQpOpenAttr.IBV_QP_OPEN_ATTR_NUM
                    | IbvQpOpenAttr.IBV_QP_OPEN_ATTR_XRCD | IbvQpOpenAttr.IBV_QP_OPEN_ATTR_TYPE);
            attr.set(U32, IbvQpOpenAttr.QP_NUM, qpNum);
            attr.set(ADDRESS, IbvQpOpenAttr.XRCD, x.pointer());
            attr.set(C_ENUM, IbvQpOpenAttr.QP_TYPE, type.value());
            MemorySegment qp = InlineVerbs.ibv_open_qp(state, c.pointer(), attr);
            if (isNull(qp)) {
                int errno = errnoOfNull(state);
                Errno e = Errno.of(errno);
                throw failure("ibv_open_qp", x, errno, e.equals(Errno.EOPNOTSUPP)
                        ? "device " + c.deviceName() + " does not support XRC (IBV_DEVICE_XRC not set)"
                        : e.equals(Errno.EINVAL)
                                ? "no " + type + " QP number " + qpNum + " exists in this XRC domain"
                                : "could not open QP " + qpNum);
            }
            return register(qp, c, type, new QpCapabilities(0, 0, 0, 0, 0));
        }
    }

    private NativeQp register(MemorySegment qp, NativeContext context, QpType type, QpCapabilities capabilities) {
        int qpNum = qp.reinterpret(IbvQp.LAYOUT.byteSize()).get(U32, IbvQp.QP_NUM);
        NativeQp handle = new NativeQp(this, qp, context, type, qpNum, capabilities,
                InlineVerbs.contextOp(qp, IbvQp.CONTEXT, IbvContextOps.POST_SEND),
                InlineVerbs.contextOp(qp, IbvQp.CONTEXT, IbvContextOps.POST_RECV));
        qps.put(qp.address(), handle);
        return handle;
    }

    @Override
    public void destroyQp(QpHandle qp) {
        NativeQp q = live(qp, NativeQp.class);
        MemorySegment state = CallState.current();
        released("ibv_destroy_qp", q, Libibverbs.ibv_destroy_qp(state, q.pointer()), state,
                "it is still attached to a multicast group: detach it first",
                "could not destroy the QP");
        qps.remove(q.pointer().address(), q);
    }

    @Override
    public void modifyQp(QpHandle qp, QpModification modification) {
        NativeQp q = live(qp, NativeQp.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvQpAttr.LAYOUT);
            // Every field is written; the mask tells the kernel which ones mean something.
            a.set(C_ENUM, IbvQpAttr.QP_STATE, modification.state().ordinal());
            a.set(C_ENUM, IbvQpAttr.PATH_MTU, modification.pathMtu().value());
            a.set(U32, IbvQpAttr.QKEY, modification.qkey());
            a.set(U32, IbvQpAttr.RQ_PSN, modification.rqPsn());
            a.set(U32, IbvQpAttr.SQ_PSN, modification.sqPsn());
            a.set(U32, IbvQpAttr.DEST_QP_NUM, modification.destQpNum());
            a.set(U32, IbvQpAttr.QP_ACCESS_FLAGS, modification.accessFlags());
            a.set(U16, IbvQpAttr.PKEY_INDEX, (short) modification.pkeyIndex());
            a.set(U8, IbvQpAttr.MAX_RD_ATOMIC, (byte) modification.maxRdAtomic());
            a.set(U8, IbvQpAttr.MAX_DEST_RD_ATOMIC, (byte) modification.maxDestRdAtomic());
            a.set(U8, IbvQpAttr.MIN_RNR_TIMER, (byte) modification.minRnrTimer());
            a.set(U8, IbvQpAttr.PORT_NUM, (byte) modification.port());
            a.set(U8, IbvQpAttr.TIMEOUT, (byte) modification.timeout());
            a.set(U8, IbvQpAttr.RETRY_CNT, (byte) modification.retryCount());
            a.set(U8, IbvQpAttr.RNR_RETRY, (byte) modification.rnrRetry());
            AddressVector path = modification.addressVector();
            if (path != null) {
                IbvAhAttr.write(a, IbvQpAttr.AH_ATTR, path);
            }
            int errno = returned(Libibverbs.ibv_modify_qp(state, q.pointer(), a, modification.maskBits()), state);
            if (errno != 0) {
                throw failure("ibv_modify_qp", q, errno, Errno.of(errno).equals(Errno.EINVAL)
                        ? "the attributes " + modification.mask() + " do not make a valid transition of a " + q.type()
                                + " QP to " + modification.state() + " (see ibv_modify_qp(3) for the attributes "
                                + "each transition requires)"
                        : "could not move the QP to " + modification.state());
            }
        }
    }

    @Override
    public QpAttributes queryQp(QpHandle qp) {
        NativeQp q = live(qp, NativeQp.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvQpAttr.LAYOUT);
            MemorySegment init = arena.allocate(IbvQpInitAttrEx.LAYOUT);
            int errno = returned(Libibverbs.ibv_query_qp(state, q.pointer(), a, QUERY_QP_MASK, init), state);
            if (errno != 0) {
                throw failure("ibv_query_qp", q, errno, "could not query the QP");
            }
            return new QpAttributes(
                    QpState.of(a.get(C_ENUM, IbvQpAttr.QP_STATE)),
                    q.type(),
                    q.qpNum(),
                    Byte.toUnsignedInt(a.get(U8, IbvQpAttr.PORT_NUM)),
                    Short.toUnsignedInt(a.get(U16, IbvQpAttr.PKEY_INDEX)),
                    a.get(U32, IbvQpAttr.QKEY),
                    mtu(a.get(C_ENUM, IbvQpAttr.PATH_MTU)),
                    a.get(U32, IbvQpAttr.DEST_QP_NUM),
                    a.get(U32, IbvQpAttr.RQ_PSN),
                    a.get(U32, IbvQpAttr.SQ_PSN),
                    a.get(U32, IbvQpAttr.QP_ACCESS_FLAGS),
                    IbvQpCap.read(a, IbvQpAttr.CAP));
        }
    }

    @Override
    public void postSend(QpHandle qp, SendWr request) {
        NativeQp q = live(qp, NativeQp.class);
        NativeSendWr wr = own(request);
        NativeAh ah = wr.addressHandle();
        if (ah != null && ah.isDestroyed()) {
            throw new IllegalStateException(ah.describe() + " was already destroyed");
        }
        requireOp("ibv_post_send", q, q.postSend());
        MemorySegment state = wr.callState();
        int rc = InlineVerbs.ibv_post_send(q.postSend(), state, q.pointer(), wr.wr(), wr.badWr());
        if (rc != 0) {
            int errno = returned(rc, state);
            throw failure("ibv_post_send", q, errno, postHint(errno, "max_send_wr (" + q.capabilities().maxSendWr()
                    + ")", "max_send_sge (" + q.capabilities().maxSendSge() + ")"));
        }
    }

    @Override
    public void postRecv(QpHandle qp, RecvWr request) {
        NativeQp q = live(qp, NativeQp.class);
        NativeRecvWr wr = own(request);
        requireOp("ibv_post_recv", q, q.postRecv());
        MemorySegment state = wr.callState();
        int rc = InlineVerbs.ibv_post_recv(q.postRecv(), state, q.pointer(), wr.wr(), wr.badWr());
        if (rc != 0) {
            int errno = returned(rc, state);
            throw failure("ibv_post_recv", q, errno, postHint(errno, "max_recv_wr (" + q.capabilities().maxRecvWr()
                    + ")", "max_recv_sge (" + q.capabilities().maxRecvSge() + ")"));
        }
    }

    @Override
    public SendWr newSendWr(int maxSge) {
        return new NativeSendWr(this, maxSge);
    }

    @Override
    public RecvWr newRecvWr(int maxSge) {
        return new NativeRecvWr(maxSge);
    }

    @Override
    public void attachMcast(QpHandle qp, Gid gid, int lid) {
        multicast("ibv_attach_mcast", qp, gid, lid);
    }

    @Override
    public void detachMcast(QpHandle qp, Gid gid, int lid) {
        multicast("ibv_detach_mcast", qp, gid, lid);
    }

    private void multicast(String verb, QpHandle qp, Gid gid, int lid) {
        NativeQp q = live(qp, NativeQp.class);
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException("lid must be 0..65535, was " + lid);
        }
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment raw = arena.allocateFrom(JAVA_BYTE, gid.toBytes());
            int rc = verb.equals("ibv_attach_mcast")
                    ? Libibverbs.ibv_attach_mcast(state, q.pointer(), raw, (short) lid)
                    : Libibverbs.ibv_detach_mcast(state, q.pointer(), raw, (short) lid);
            int errno = returned(rc, state);
            if (errno != 0) {
                throw failure(verb, q, errno, Errno.of(errno).equals(Errno.EINVAL)
                        ? gid + " is not a multicast GID, or a " + q.type() + " QP cannot join groups (only UD can)"
                        : "multicast group " + gid + " (lid " + lid + ")");
            }
        }
    }

    // ---- memory regions and address handles -------------------------------------------------------

    @Override
    public MrHandle regMr(PdHandle pd, MemorySegment buffer, int access) {
        NativePd p = live(pd, NativePd.class);
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("ibv_reg_mr needs off-heap memory the device can reach; " + buffer
                    + " is a heap segment: allocate the buffer from an Arena");
        }
        MemorySegment state = CallState.current();
        // As the ibv_reg_mr macro of verbs.h: only optional access flags need ibv_reg_mr_iova2.
        MemorySegment mr = (access & IBV_ACCESS_OPTIONAL_RANGE) == 0
                ? Libibverbs.ibv_reg_mr(state, p.pointer(), buffer, buffer.byteSize(), access)
                : Libibverbs.ibv_reg_mr_iova2(state, p.pointer(), buffer, buffer.byteSize(), buffer.address(), access);
        if (isNull(mr)) {
            int errno = errnoOfNull(state);
            Errno e = Errno.of(errno);
            throw failure("ibv_reg_mr", p, errno, e.equals(Errno.EINVAL)
                    ? "access flags 0x" + Integer.toHexString(access) + " were refused (remote write and atomic "
                            + "access need LOCAL_WRITE too) or the length " + buffer.byteSize() + " is invalid"
                    : e.equals(Errno.EFAULT)
                            ? "the buffer 0x" + Long.toHexString(buffer.address()) + " is not mapped memory"
                            : "could not register " + buffer.byteSize() + " bytes" + memlockHint(errno));
        }
        MemorySegment fields = mr.reinterpret(IbvMr.LAYOUT.byteSize());
        return new NativeMr(this, mr, p, buffer, fields.get(U32, IbvMr.LKEY), fields.get(U32, IbvMr.RKEY),
                fields.get(ADDRESS, IbvMr.ADDR).address(), fields.get(SIZE_T, IbvMr.LENGTH));
    }

    @Override
    public void deregMr(MrHandle mr) {
        NativeMr m = live(mr, NativeMr.class);
        MemorySegment state = CallState.current();
        released("ibv_dereg_mr", m, Libibverbs.ibv_dereg_mr(state, m.pointer()), state,
                "a memory window is still bound to it",
                "could not deregister the memory region");
    }

    @Override
    public AhHandle createAh(PdHandle pd, AddressVector address) {
        NativePd p = live(pd, NativePd.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvAhAttr.LAYOUT);
            IbvAhAttr.write(attr, 0, address);
            MemorySegment ah = Libibverbs.ibv_create_ah(state, p.pointer(), attr);
            if (isNull(ah)) {
                int errno = errnoOfNull(state);
                GlobalRoute route = address.globalRoute();
                throw failure("ibv_create_ah", p, errno, route != null
                        ? "no route to " + route.destinationGid() + " from GID index " + route.sourceGidIndex()
                                + " of port " + address.portNumber()
                                + " (RoCE needs a valid source GID and a reachable destination)"
                        : "could not create an address handle to LID " + address.destinationLid()
                                + " (a RoCE device needs a global route: use AddressVector.roce)");
            }
            return new NativeAh(this, ah, p);
        }
    }

    @Override
    public void destroyAh(AhHandle ah) {
        NativeAh a = live(ah, NativeAh.class);
        MemorySegment state = CallState.current();
        released("ibv_destroy_ah", a, Libibverbs.ibv_destroy_ah(state, a.pointer()), state,
                "could not destroy the address handle",
                "could not destroy the address handle");
    }

    // ---- async events ---------------------------------------------------------------------------

    @Override
    public @Nullable AsyncEventRecord getAsyncEvent(ContextHandle context, long timeoutMillis) {
        NativeContext c = live(context, NativeContext.class);
        MemorySegment state = CallState.current();
        long deadline = EventDescriptors.deadline(timeoutMillis);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollFd = arena.allocate(PollFd.LAYOUT);
            MemorySegment event = arena.allocate(IbvAsyncEvent.LAYOUT);
            while (true) {
                if (!EventDescriptors.awaitReadable(c, c.asyncFd(), pollFd, deadline, state)) {
                    return null;
                }
                if (Libibverbs.ibv_get_async_event(state, c.pointer(), event) != 0) {
                    int errno = CallState.errno(state);
                    if (errno == EAGAIN || errno == EINTR) {
                        continue;
                    }
                    throw failure("ibv_get_async_event", c, errno, "could not read an async event of "
                            + c.deviceName());
                }
                AsyncEventRecord record;
                try {
                    record = copy(event);
                } finally {
                    // Acked at once: ibv_destroy_qp/cq/srq wait until every async event about their object
                    // is acked, and the caller gets a copy, so holding the native event would only risk a
                    // destroy that never returns.
                    Libibverbs.ibv_ack_async_event(event);
                }
                if (record != null) {
                    return record;
                }
            }
        }
    }

    /** The event with element pointers turned into this provider's handles; null for a type newer than the model. */
    private @Nullable AsyncEventRecord copy(MemorySegment event) {
        int value = event.get(C_ENUM, IbvAsyncEvent.EVENT_TYPE);
        if (value < 0 || value >= AsyncEventType.values().length) {
            return null;
        }
        AsyncEventType type = AsyncEventType.of(value);
        return switch (type.element()) {
            case CQ -> new AsyncEventRecord(type, cqs.get(event.get(ADDRESS, IbvAsyncEvent.ELEMENT_CQ).address()), 0);
            case QP -> new AsyncEventRecord(type, qps.get(event.get(ADDRESS, IbvAsyncEvent.ELEMENT_QP).address()), 0);
            case SRQ -> new AsyncEventRecord(type, srqs.get(event.get(ADDRESS, IbvAsyncEvent.ELEMENT_SRQ).address()),
                    0);
            case PORT -> new AsyncEventRecord(type, null, event.get(C_INT, IbvAsyncEvent.ELEMENT_PORT_NUM));
            case WQ, DEVICE -> new AsyncEventRecord(type, null, 0);
        };
    }

    // ---- checks and conversions -------------------------------------------------------------------

    /**
     * {@code handle} as this provider's live handle of the given kind; checked before any native call,
     * since a foreign or freed pointer would crash the JVM rather than fail.
     */
    <H extends NativeHandle> H live(Handle handle, Class<H> kind) {
        if (!(handle instanceof NativeHandle h) || !h.createdBy(this) || !kind.isInstance(handle)) {
            throw new IllegalArgumentException("handle " + handle.describe() + " was not created by the native "
                    + "provider");
        }
        if (h.isDestroyed()) {
            throw new IllegalStateException(h.describe() + " was already destroyed");
        }
        return kind.cast(h);
    }

    private static <H extends Handle> H required(@Nullable H handle, String message) {
        if (handle == null) {
            throw new IllegalArgumentException(message);
        }
        return handle;
    }

    private MemorySegment pointerOf(@Nullable Handle handle, Class<? extends NativeHandle> kind) {
        return handle == null ? MemorySegment.NULL : live(handle, kind).pointer();
    }

    private static NativeSendWr own(SendWr request) {
        if (!(request instanceof NativeSendWr wr)) {
            throw new IllegalArgumentException(request + " was not created by the native provider (use newSendWr)");
        }
        if (wr.isClosed()) {
            throw new IllegalStateException(wr + " was already closed");
        }
        return wr;
    }

    private static NativeRecvWr own(RecvWr request) {
        if (!(request instanceof NativeRecvWr wr)) {
            throw new IllegalArgumentException(request + " was not created by the native provider (use newRecvWr)");
        }
        if (wr.isClosed()) {
            throw new IllegalStateException(wr + " was already closed");
        }
        return wr;
    }

    private static void requireOp(String verb, NativeHandle handle, MemorySegment op) {
        if (isNull(op)) {
            throw new VerbsException(verb, handle.describe(), Errno.EOPNOTSUPP,
                    "the device's provider library does not implement " + verb);
        }
    }

    private static void requirePort(String verb, NativeContext context, int port) {
        if (port < 1 || port > 255) {
            throw failure(verb, context, Errno.EINVAL.number(),
                    "port " + port + " does not exist: ports are numbered from 1 to phys_port_cnt");
        }
    }

    /**
     * The errno of a verb returning {@code int}: 0 on success. Verbs return the errno itself, but some
     * providers return {@code -errno}, and some return -1 with errno set.
     */
    /**
     * Marks {@code handle} destroyed when its release verb succeeded; otherwise throws and leaves it
     * alive, so that the release can be retried.
     */
    private static void released(String verb, NativeHandle handle, int rc, MemorySegment state, String whenBusy,
            String otherwise) {
        int errno = returned(rc, state);
        if (errno != 0) {
            throw failure(verb, handle, errno, Errno.of(errno).equals(Errno.EBUSY) ? whenBusy : otherwise);
        }
        handle.markDestroyed();
    }

    private static int returned(int rc, MemorySegment state) {
        if (rc == -1) {
            int errno = CallState.errno(state);
            return errno > 0 ? errno : Errno.EPERM.number();
        }
        if (rc == Integer.MIN_VALUE) {
            return Errno.EIO.number();
        }
        return Math.abs(rc);
    }

    /** errno after a call returned NULL (read only then: libc never clears it). */
    private static int errnoOfNull(MemorySegment state) {
        int errno = CallState.errno(state);
        return errno > 0 ? errno : Errno.EIO.number();
    }

    private static VerbsException failure(String verb, Handle resource, int errno, String message) {
        return new VerbsException(verb, resource.describe(), Errno.of(errno), message);
    }

    static String permissionHint(int errno) {
        Errno e = Errno.of(errno);
        return e.equals(Errno.EACCES) || e.equals(Errno.EPERM)
                ? ": this user may not open /dev/infiniband/uverbs* (check its permissions, e.g. the rdma group "
                        + "or a udev rule)"
                : "";
    }

    private static String memlockHint(int errno) {
        return Errno.of(errno).equals(Errno.ENOMEM)
                ? ": out of lockable memory; raise RLIMIT_MEMLOCK (ulimit -l unlimited, or LimitMEMLOCK=infinity "
                        + "in a systemd unit)"
                : "";
    }

    private static String postHint(int errno, String depth, String sges) {
        Errno e = Errno.of(errno);
        if (e.equals(Errno.ENOMEM)) {
            return "the queue is full: " + depth + " requests are outstanding; poll the CQ before posting more";
        }
        if (e.equals(Errno.EINVAL)) {
            return "the request does not fit: more SGEs than " + sges + ", an opcode this QP type cannot "
                    + "send, or the QP is not in a state that accepts it";
        }
        return "the provider refused the request";
    }

    private static Mtu mtu(int value) {
        // An MTU that was never set reads 0; the smallest is the honest answer for "not negotiated".
        return value >= 1 && value <= 5 ? Mtu.of(value) : Mtu.MTU_256;
    }
}
