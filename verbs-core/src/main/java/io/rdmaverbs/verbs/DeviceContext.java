package io.rdmaverbs.verbs;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

/**
 * An open device ({@code struct ibv_context}): the parent of every other resource. Its release,
 * {@code ibv_close_device}, does not release what was created under it ({@code ibv_close_device(3)}), so the graph
 * refuses a strict close while anything is open.
 *
 * <p>An {@linkplain #isAdopted() adopted} context is one librdmacm opened for itself ({@code id->verbs},
 * {@code rdma_cm(7)}): the graph holds one per such context, the parent of the CM ids resolved to it and of
 * the PDs and CQs their QPs need ({@code rdma_create_qp(3)} takes only those). Everything on it follows the
 * usual rules; its own release only unlinks it, since librdmacm closes it, never the application.
 */
public final class DeviceContext extends VerbsResource {

    /** What {@code ibv_close_device(3)} does to a resource still open, as the end of a sentence. */
    private static final String LEAK = " open: ibv_close_device does not release it (it would leak)";
    private static final String ADOPTED_LEAK =
            " open: librdmacm keeps this context open, but the graph would lose track of it (it would leak)";
    /** The messages of a resource left open on the context, worded when read. */
    private static final StuckReference.Wording STILL_HAS = s -> s.resource().sentence(" still has ",
            Objects.requireNonNull(s.blocker()), LEAK);
    private static final StuckReference.Wording STILL_HAS_ADOPTED = s -> s.resource().sentence(" still has ",
            Objects.requireNonNull(s.blocker()), ADOPTED_LEAK);

    final ContextHandle handle;
    private final VerbsProvider provider;
    private final DeviceInfo device;
    private final DeviceAttributes attributes;
    private final boolean adopted;
    /** Bumped by {@link #wakeAsyncEventWaiters()}: a waiter that saw it change returns empty. */
    private final AtomicLong asyncWakes = new AtomicLong();

    DeviceContext(Verbs verbs, DeviceInfo device, ContextHandle handle, DeviceAttributes attributes,
            @Nullable String name) {
        this(verbs, device, handle, attributes, name != null ? name : device.name(), false);
    }

    private DeviceContext(Verbs verbs, DeviceInfo device, ContextHandle handle, DeviceAttributes attributes,
            String name, boolean adopted) {
        super(verbs, ResourceKind.DEVICE_CONTEXT, List.of(), name);
        this.handle = handle;
        this.provider = verbs.provider();
        this.device = device;
        this.attributes = attributes;
        this.adopted = adopted;
    }

    /** The context librdmacm opened on {@code handle}'s device, which the graph adopts (never closes). */
    static DeviceContext adopted(Verbs verbs, ContextHandle handle, DeviceAttributes attributes) {
        return new DeviceContext(verbs, handle.device(), handle, attributes, handle.device().name() + "@rdma_cm", true);
    }

    /**
     * Whether librdmacm opened this context ({@code id->verbs}) and the graph only adopted it: its release
     * never calls {@code ibv_close_device}.
     */
    public boolean isAdopted() {
        return adopted;
    }

    @Override
    public DeviceContext context() {
        return this;
    }

    public DeviceInfo device() {
        return device;
    }

    /** {@code ibv_query_device}, as read when the device was opened. */
    public DeviceAttributes attributes() {
        return attributes;
    }

    public boolean supportsXrc() {
        return attributes.supportsXrc();
    }

    /** {@code ibv_query_port}. */
    public PortAttributes queryPort(int port) {
        checkPort(port);
        enter();
        try {
            return provider.deviceVerbs().queryPort(handle, port);
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } finally {
            exit();
        }
    }

    /** {@code ibv_query_gid}. */
    public Gid queryGid(int port, int index) {
        checkPort(port);
        if (index < 0) {
            throw new IllegalArgumentException("GID index must be >= 0, was " + index);
        }
        enter();
        try {
            return provider.deviceVerbs().queryGid(handle, port, index);
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } finally {
            exit();
        }
    }

    void checkPort(int port) {
        if (port < 1 || port > attributes.physPortCount()) {
            throw new IllegalArgumentException("port " + port + " does not exist on " + device.name()
                    + ": ports are 1.." + attributes.physPortCount());
        }
    }

    // ---- creation verbs -------------------------------------------------------------------------

    /** {@code ibv_alloc_pd(3)}; reports name it by kind and number ({@code pd#3}). */
    public ProtectionDomain allocateProtectionDomain() {
        return newProtectionDomain(null);
    }

    /** {@code ibv_alloc_pd(3)}, named {@code name} in reports. */
    public ProtectionDomain allocateProtectionDomain(String name) {
        return newProtectionDomain(Objects.requireNonNull(name, "name"));
    }

    private ProtectionDomain newProtectionDomain(@Nullable String name) {
        return verbs.create(this, List.of(this),
                () -> new ProtectionDomain(this, provider.domainVerbs().allocPd(handle), name));
    }

    /**
     * {@code ibv_open_xrcd(3)}: opens or creates the XRC domain named by a file's inode, shared with every
     * process (and context) that opens the same file, or a private one.
     */
    public XrcDomain openXrcDomain(XrcDomainSpec spec) {
        return newXrcDomain(spec, null);
    }

    /** {@link #openXrcDomain(XrcDomainSpec)}, named {@code name} in reports. */
    public XrcDomain openXrcDomain(XrcDomainSpec spec, String name) {
        return newXrcDomain(spec, Objects.requireNonNull(name, "name"));
    }

    private XrcDomain newXrcDomain(XrcDomainSpec spec, @Nullable String name) {
        Objects.requireNonNull(spec, "spec");
        int oflags = spec.openFlags();
        Path file = spec.file();
        return verbs.create(this, List.of(this), () -> {
            // Without a file, the descriptor (or -1) is the caller's: it keeps it, so it is not closed here.
            int fd = file == null ? spec.descriptor() : provider.domainVerbs().openFile(file, spec.create());
            try {
                return new XrcDomain(this, openXrcd(fd, oflags), spec, name);
            } finally {
                if (file != null) {
                    // The kernel holds the inode from here on; the descriptor is no longer needed.
                    provider.domainVerbs().closeFile(fd);
                }
            }
        });
    }

    private io.rdmaverbs.verbs.provider.XrcdHandle openXrcd(int fd, int oflags) {
        try {
            return provider.domainVerbs().openXrcd(handle, fd, oflags);
        } catch (VerbsException e) {
            if (Errno.EOPNOTSUPP.equals(e.errno())) {
                throw new VerbsException(e.verb(), e.resource(), e.errno(), "device " + device.name()
                        + " has no XRC support (IBV_DEVICE_XRC is not set; soft-RoCE rxe never has it): "
                        + "use a device that supports XRC, or RC queue pairs with an SRQ instead", e);
            }
            throw e;
        }
    }

    /** {@code ibv_create_comp_channel(3)}; reports name it by kind and number. */
    public CompletionChannel createCompletionChannel() {
        return newCompletionChannel(null);
    }

    /** {@code ibv_create_comp_channel(3)}, named {@code name} in reports. */
    public CompletionChannel createCompletionChannel(String name) {
        return newCompletionChannel(Objects.requireNonNull(name, "name"));
    }

    private CompletionChannel newCompletionChannel(@Nullable String name) {
        return verbs.create(this, List.of(this),
                () -> new CompletionChannel(this, provider.completionVerbs().createCompChannel(handle), name));
    }

    /**
     * {@code ibv_create_cq(3)} ({@code ibv_create_cq_ex(3)} for a spec {@link CompletionQueueSpec#withExtendedPolling
     * with extended polling}), after checking {@code spec} against this device's {@code max_cqe} and
     * {@code num_comp_vectors}, and that its channel belongs to this context.
     */
    public CompletionQueue createCompletionQueue(CompletionQueueSpec spec) {
        return newCompletionQueue(spec, null);
    }

    /** {@link #createCompletionQueue(CompletionQueueSpec)}, named {@code name} in reports. */
    public CompletionQueue createCompletionQueue(CompletionQueueSpec spec, String name) {
        return newCompletionQueue(spec, Objects.requireNonNull(name, "name"));
    }

    private CompletionQueue newCompletionQueue(CompletionQueueSpec spec, @Nullable String name) {
        Objects.requireNonNull(spec, "spec");
        int entries = spec.entries();
        CompletionChannel channel = spec.channel();
        int compVector = spec.compVector();
        if (entries > attributes.maxCqe()) {
            throw new IllegalArgumentException("a CQ on " + device.name() + " holds 1.." + attributes.maxCqe()
                    + " entries (max_cqe), asked for " + entries);
        }
        if (compVector >= attributes.numCompVectors()) {
            throw new IllegalArgumentException("completion vector " + compVector + " does not exist on "
                    + device.name() + ": vectors are 0.." + (attributes.numCompVectors() - 1));
        }
        if (channel != null) {
            requireSameContext(channel, "completion channel");
        }
        List<VerbsResource> guards = channel == null ? List.of(this) : List.of(this, channel);
        Set<CompletionField> extended = spec.extendedFields();
        return verbs.create(this, guards, () -> new CompletionQueue(this, extended == null
                ? provider.completionVerbs().createCq(handle, entries, channel == null ? null : channel.handle,
                        compVector)
                : provider.completionVerbs().createCqEx(handle, entries, channel == null ? null : channel.handle,
                        compVector, CompletionField.mask(extended)), channel, compVector, extended, name));
    }

    // ---- async events ---------------------------------------------------------------------------

    /**
     * Waits up to {@code timeout} for an async event ({@code ibv_get_async_event}, acknowledged at once).
     * Returns empty on timeout, or as soon as {@link #wakeAsyncEventWaiters()} is called, and throws
     * {@link ResourceClosedException} once the context is closing (a close wakes the waiters, so at
     * once), so a reader thread stops at shutdown without waiting for its timeout.
     */
    public Optional<AsyncEvent> awaitAsyncEvent(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long woken = asyncWakes.get();
        do {
            long remainingMillis = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            AsyncEventRecord record;
            enter();
            try {
                record = provider.asyncEventVerbs().getAsyncEvent(handle,
                        Math.min(remainingMillis, CompletionChannel.WAIT_SLICE_MILLIS));
            } catch (VerbsException e) {
                throw e.about(ref().toString());
            } finally {
                exit();
            }
            if (record != null) {
                VerbsResource element = verbs.resourceOf(record.element());
                AsyncEvent event = new AsyncEvent(record.type(), ref(), record.port(),
                        element == null ? null : element.ref(), Instant.now());
                verbs.fireAsyncEvent(event);
                return Optional.of(event);
            }
            if (asyncWakes.get() != woken) {
                return Optional.empty();
            }
        } while (System.nanoTime() < deadline);
        return Optional.empty();
    }

    /**
     * Makes the threads waiting in {@link #awaitAsyncEvent(Duration)} now return empty promptly, instead
     * of at their timeout (one that gets an event meanwhile returns it): how a reader thread is stopped.
     * Safe from any thread; does nothing once the context is closing, since the close wakes them itself.
     */
    public void wakeAsyncEventWaiters() {
        asyncWakes.incrementAndGet();
        wakeWaitersIfOpen();
    }

    @Override
    void wakeProviderWaiters() {
        provider.asyncEventVerbs().wakeAsyncEventWaiters(handle);
    }

    void requireSameContext(VerbsResource other, String what) {
        if (other.verbs != verbs) {
            throw new IllegalArgumentException("the " + what + " " + other.ref()
                    + " belongs to another resource graph (provider " + other.verbs.provider().name() + ")");
        }
        DeviceContext theirs = other.context();
        if (theirs != this) {
            throw new IllegalArgumentException("the " + what + " " + other.ref() + " belongs to "
                    + (theirs == null ? "no device context" : "device context " + theirs.ref()) + ", not " + ref());
        }
        other.checkOpen();
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("device", device.name());
        m.put("guid", device.guidHex());
        m.put("nodeType", device.nodeType().name());
        m.put("ports", attributes.physPortCount());
        m.put("xrc", attributes.supportsXrc());
        m.put("maxCqe", attributes.maxCqe());
        m.put("numCompVectors", attributes.numCompVectors());
        if (adopted) {
            m.put("adopted", "opened by librdmacm (id->verbs), which closes it; never ibv_close_device");
        }
        return m;
    }

    @Override
    String releaseVerb() {
        return adopted ? "none (librdmacm closes its own context)" : super.releaseVerb();
    }

    /** ibv_close_device succeeds with resources open: they leak rather than fail it. */
    @Override
    StuckReference dependentReference(ResourceRef self, VerbsResource d) {
        ResourceRef blocker = d.ref();
        return new StuckReference(self, releaseVerb(), StuckReference.Consequence.LEAKS,
                null, StuckReference.Cause.DEPENDENT_RESOURCE, blocker, adopted ? STILL_HAS_ADOPTED : STILL_HAS);
    }

    @Override
    void release() {
        if (adopted) {
            verbs.contextReleased(this);
        } else {
            provider.deviceVerbs().closeDevice(handle);
        }
    }
}
