package io.rdmaverbs.verbs.provider.ffm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Objects;

import io.rdmaverbs.verbs.provider.AddressHandleVerbs;
import io.rdmaverbs.verbs.provider.AsyncEventVerbs;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.Handle;
import io.rdmaverbs.verbs.provider.MemoryRegionVerbs;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException.Reason;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.VerbsProvider;

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
 * <p>The data path ({@link CompletionVerbs#pollCq}, {@link CompletionVerbs#reqNotifyCq},
 * {@link QueuePairVerbs#postSend}, {@link QueuePairVerbs#postRecv},
 * {@link SharedReceiveQueueVerbs#postSrqRecv}) allocates nothing: it works on the off-heap structs of
 * {@link CompletionVerbs#newWorkCompletions}, {@link QueuePairVerbs#newSendWr} and
 * {@link QueuePairVerbs#newRecvWr}, calls the provider's op pointers read once per CQ, QP or SRQ, and
 * captures no errno: those verbs return it ({@code ibv_post_send(3)}, {@code ibv_req_notify_cq(3)}).
 *
 * <p>{@code ibv_destroy_cq} blocks inside libibverbs until every completion event returned by
 * {@link CompletionVerbs#getCqEvent} for that CQ has been acknowledged. This provider does nothing about it: the
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
    private final NativeHandleIndex index = new NativeHandleIndex();
    /* One object per verb group; they share the handle checks below and the address -> handle maps. */
    private final NativeDeviceVerbs deviceVerbs;
    private final NativeDomainVerbs domainVerbs;
    private final NativeCompletionVerbs completionVerbs;
    private final NativeSrqVerbs srqVerbs;
    private final NativeQpVerbs qpVerbs;
    private final NativeMrVerbs mrVerbs;
    private final NativeAhVerbs ahVerbs;
    private final NativeAsyncEventVerbs asyncEventVerbs;
    /* Loaded on first use: librdmacm is optional, and the verbs work without it. Guarded by this. */
    private @Nullable NativeConnectionVerbs connectionVerbs;

    private NativeVerbsProvider(String library) {
        this.library = library;
        this.deviceVerbs = new NativeDeviceVerbs(this, index);
        this.domainVerbs = new NativeDomainVerbs(this);
        this.completionVerbs = new NativeCompletionVerbs(this, index.cqs());
        this.srqVerbs = new NativeSrqVerbs(this, index.srqs());
        this.qpVerbs = new NativeQpVerbs(this, index.qps());
        this.mrVerbs = new NativeMrVerbs(this);
        this.ahVerbs = new NativeAhVerbs(this);
        this.asyncEventVerbs = new NativeAsyncEventVerbs(this, index);
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

    @Override
    public DeviceVerbs deviceVerbs() {
        return deviceVerbs;
    }

    @Override
    public DomainVerbs domainVerbs() {
        return domainVerbs;
    }

    @Override
    public CompletionVerbs completionVerbs() {
        return completionVerbs;
    }

    @Override
    public SharedReceiveQueueVerbs sharedReceiveQueueVerbs() {
        return srqVerbs;
    }

    @Override
    public QueuePairVerbs queuePairVerbs() {
        return qpVerbs;
    }

    @Override
    public MemoryRegionVerbs memoryRegionVerbs() {
        return mrVerbs;
    }

    @Override
    public AddressHandleVerbs addressHandleVerbs() {
        return ahVerbs;
    }

    @Override
    public AsyncEventVerbs asyncEventVerbs() {
        return asyncEventVerbs;
    }

    /**
     * librdmacm's connection manager, loaded on the first call and then cached.
     *
     * @throws ProviderUnavailableException {@link Reason#CONNECTION_MANAGER_UNAVAILABLE} when librdmacm cannot
     *         be loaded or the {@code rdma_ucm} kernel module is not loaded (asked again on the next call, so a
     *         later {@code modprobe} is seen); the other verb groups stay usable either way
     */
    @Override
    public synchronized ConnectionVerbs connectionVerbs() {
        if (connectionVerbs == null) {
            RdmaCm cm;
            try {
                cm = RdmaCm.load();
            } catch (ProviderUnavailableException e) {
                throw new ProviderUnavailableException(Reason.CONNECTION_MANAGER_UNAVAILABLE,
                        "no connection manager (rdma_cm(7)): " + e.getMessage(), e);
            }
            if (!Files.exists(RdmaCm.UCMA_ABI_VERSION)) {
                throw new ProviderUnavailableException(Reason.CONNECTION_MANAGER_UNAVAILABLE, "no connection manager "
                        + "(rdma_cm(7)): the rdma_ucm kernel module is not loaded (" + RdmaCm.UCMA_ABI_VERSION
                        + " is missing, so there is no /dev/infiniband/rdma_cm); load it with 'modprobe rdma_ucm'. "
                        + "The verbs are not affected.");
            }
            connectionVerbs = new NativeConnectionVerbs(this, cm, deviceVerbs, qpVerbs);
        }
        return connectionVerbs;
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
        // The kind first: every kind is a final class, so this is one class comparison, and it implies
        // NativeHandle (the data path identifies a handle on every call).
        if (!kind.isInstance(handle) || !kind.cast(handle).createdBy(this)) {
            throw new IllegalArgumentException("handle " + handle.describe() + " was not created by the native "
                    + "provider");
        }
        return kind.cast(handle);
    }
}
