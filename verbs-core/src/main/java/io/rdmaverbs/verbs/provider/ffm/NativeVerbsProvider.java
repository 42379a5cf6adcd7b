package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.failure;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.own;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.postHint;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.requireOp;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.returned;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpType;
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

    private static @Nullable NativeVerbsProvider instance;

    private final String library;
    /* Address -> handle, to turn the pointers in CQ and async events back into the caller's handles. */
    private final Map<Long, NativeCq> cqs = new ConcurrentHashMap<>();
    private final Map<Long, NativeQp> qps = new ConcurrentHashMap<>();
    private final Map<Long, NativeSrq> srqs = new ConcurrentHashMap<>();
    /* Every verb off the data path is one of these; the data path itself is below, in this class. */
    private final DeviceVerbs deviceVerbs;
    private final DomainVerbs domainVerbs;
    private final CompletionVerbs completionVerbs;
    private final SrqVerbs srqVerbs;
    private final QpVerbs qpVerbs;
    private final MrVerbs mrVerbs;
    private final AhVerbs ahVerbs;
    private final AsyncEventVerbs asyncEventVerbs;

    private NativeVerbsProvider(String library) {
        this.library = library;
        this.deviceVerbs = new DeviceVerbs(this, cqs, qps, srqs);
        this.domainVerbs = new DomainVerbs(this);
        this.completionVerbs = new CompletionVerbs(this, cqs);
        this.srqVerbs = new SrqVerbs(this, srqs);
        this.qpVerbs = new QpVerbs(this, qps);
        this.mrVerbs = new MrVerbs(this);
        this.ahVerbs = new AhVerbs(this);
        this.asyncEventVerbs = new AsyncEventVerbs(this, cqs, qps, srqs);
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
        return deviceVerbs.devices();
    }

    @Override
    public ContextHandle openDevice(DeviceInfo device) {
        return deviceVerbs.openDevice(device);
    }

    @Override
    public void closeDevice(ContextHandle context) {
        deviceVerbs.closeDevice(context);
    }

    @Override
    public void wakeAsyncEventWaiters(ContextHandle context) {
        deviceVerbs.wakeAsyncEventWaiters(context);
    }

    @Override
    public DeviceAttributes queryDevice(ContextHandle context) {
        return deviceVerbs.queryDevice(context);
    }

    @Override
    public PortAttributes queryPort(ContextHandle context, int port) {
        return deviceVerbs.queryPort(context, port);
    }

    @Override
    public Gid queryGid(ContextHandle context, int port, int index) {
        return deviceVerbs.queryGid(context, port, index);
    }

    // ---- protection and XRC domains -------------------------------------------------------------

    @Override
    public PdHandle allocPd(ContextHandle context) {
        return domainVerbs.allocPd(context);
    }

    @Override
    public void deallocPd(PdHandle pd) {
        domainVerbs.deallocPd(pd);
    }

    @Override
    public int openFile(Path file, boolean create) {
        return domainVerbs.openFile(file, create);
    }

    @Override
    public void closeFile(int fd) {
        domainVerbs.closeFile(fd);
    }

    @Override
    public XrcdHandle openXrcd(ContextHandle context, int fd, int oflags) {
        return domainVerbs.openXrcd(context, fd, oflags);
    }

    @Override
    public void closeXrcd(XrcdHandle xrcd) {
        domainVerbs.closeXrcd(xrcd);
    }

    // ---- completion channels and CQs --------------------------------------------------------------

    @Override
    public CompChannelHandle createCompChannel(ContextHandle context) {
        return completionVerbs.createCompChannel(context);
    }

    @Override
    public void destroyCompChannel(CompChannelHandle channel) {
        completionVerbs.destroyCompChannel(channel);
    }

    @Override
    public void wakeCqEventWaiters(CompChannelHandle channel) {
        completionVerbs.wakeCqEventWaiters(channel);
    }

    @Override
    public CqHandle createCq(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector) {
        return completionVerbs.createCq(context, cqe, channel, compVector);
    }

    @Override
    public void destroyCq(CqHandle cq) {
        completionVerbs.destroyCq(cq);
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
        return completionVerbs.getCqEvent(channel, timeoutMillis);
    }

    @Override
    public void ackCqEvents(CqHandle cq, int count) {
        completionVerbs.ackCqEvents(cq, count);
    }

    // ---- shared receive queues ------------------------------------------------------------------

    @Override
    public SrqHandle createSrq(ContextHandle context, SrqInitSpec spec) {
        return srqVerbs.createSrq(context, spec);
    }

    @Override
    public void destroySrq(SrqHandle srq) {
        srqVerbs.destroySrq(srq);
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
        return qpVerbs.createQp(context, spec);
    }

    @Override
    public QpHandle openQp(ContextHandle context, XrcdHandle xrcd, int qpNum, QpType type) {
        return qpVerbs.openQp(context, xrcd, qpNum, type);
    }

    @Override
    public void destroyQp(QpHandle qp) {
        qpVerbs.destroyQp(qp);
    }

    @Override
    public void modifyQp(QpHandle qp, QpModification modification) {
        qpVerbs.modifyQp(qp, modification);
    }

    @Override
    public QpAttributes queryQp(QpHandle qp) {
        return qpVerbs.queryQp(qp);
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
        qpVerbs.attachMcast(qp, gid, lid);
    }

    @Override
    public void detachMcast(QpHandle qp, Gid gid, int lid) {
        qpVerbs.detachMcast(qp, gid, lid);
    }

    // ---- memory regions and address handles -------------------------------------------------------

    @Override
    public MrHandle regMr(PdHandle pd, MemorySegment buffer, int access) {
        return mrVerbs.regMr(pd, buffer, access);
    }

    @Override
    public void deregMr(MrHandle mr) {
        mrVerbs.deregMr(mr);
    }

    @Override
    public AhHandle createAh(PdHandle pd, AddressVector address) {
        return ahVerbs.createAh(pd, address);
    }

    @Override
    public void destroyAh(AhHandle ah) {
        ahVerbs.destroyAh(ah);
    }

    // ---- async events ---------------------------------------------------------------------------

    @Override
    public @Nullable AsyncEventRecord getAsyncEvent(ContextHandle context, long timeoutMillis) {
        return asyncEventVerbs.getAsyncEvent(context, timeoutMillis);
    }

    // ---- checks and conversions -------------------------------------------------------------------

    /**
     * {@code handle} as this provider's live handle of the given kind; checked before any native call,
     * since a foreign or freed pointer would crash the JVM rather than fail.
     */
    <H extends NativeHandle> H live(Handle handle, Class<H> kind) {
        H h = identify(handle, kind);
        if (h.isDestroyed()) {
            throw new IllegalStateException(h.describe() + " was already destroyed");
        }
        return h;
    }

    /** {@code handle} as this provider's handle of the given kind, destroyed or not. */
    <H extends NativeHandle> H identify(Handle handle, Class<H> kind) {
        if (!(handle instanceof NativeHandle h) || !h.createdBy(this) || !kind.isInstance(handle)) {
            throw new IllegalArgumentException("handle " + handle.describe() + " was not created by the native "
                    + "provider");
        }
        return kind.cast(h);
    }
}
