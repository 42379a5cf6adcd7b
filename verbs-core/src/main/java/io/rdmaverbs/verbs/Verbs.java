package io.rdmaverbs.verbs;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.Handle;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

/**
 * The root of a resource graph on one provider: opens devices, keeps every live resource, answers
 * what is stuck and in what order things must be released, and closes subgraphs under a
 * {@link ClosePolicy}.
 *
 * <pre>{@code
 * try (Verbs verbs = Verbs.using(provider)) {
 *     DeviceContext ctx = verbs.openDevice("rxe0");
 *     ProtectionDomain pd = ctx.allocateProtectionDomain();
 *     ...
 * } // cascade: everything still open is released, children first
 * }</pre>
 */
public final class Verbs implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Verbs.class.getName());

    private final VerbsProvider provider;
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentSkipListMap<Long, VerbsResource> live = new ConcurrentSkipListMap<>();
    private final Map<Handle, VerbsResource> byHandle = new ConcurrentHashMap<>();
    private final List<VerbsListener> listeners = new CopyOnWriteArrayList<>();
    /** librdmacm's own contexts the graph adopted, one per provider context handle; guarded by itself. */
    private final Map<ContextHandle, DeviceContext> adopted = new java.util.HashMap<>();

    private Verbs(VerbsProvider provider) {
        this.provider = Objects.requireNonNull(provider, "provider");
    }

    /** A new, empty graph on {@code provider}. */
    public static Verbs using(VerbsProvider provider) {
        return new Verbs(provider);
    }

    public VerbsProvider provider() {
        return provider;
    }

    public void addListener(VerbsListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(VerbsListener listener) {
        listeners.remove(listener);
    }

    // ---- devices --------------------------------------------------------------------------------

    /** The devices the provider sees ({@code ibv_get_device_list}); empty on a machine without RDMA. */
    public List<DeviceInfo> devices() {
        return provider.deviceVerbs().devices();
    }

    /**
     * {@code ibv_open_device(3)} of the device named {@code nameOrGuid} (a kernel name such as
     * {@code rxe0}, or a node GUID); reports name the context after the device.
     */
    public DeviceContext openDevice(String nameOrGuid) {
        return newContext(findDevice(nameOrGuid), null);
    }

    /** {@link #openDevice(String)}, naming the context {@code name} in reports. */
    public DeviceContext openDevice(String nameOrGuid, String name) {
        return newContext(findDevice(nameOrGuid), Objects.requireNonNull(name, "name"));
    }

    /** {@code ibv_open_device(3)} of {@code device}; reports name the context after the device. */
    public DeviceContext openDevice(DeviceInfo device) {
        return newContext(device, null);
    }

    /** {@link #openDevice(DeviceInfo)}, naming the context {@code name} in reports. */
    public DeviceContext openDevice(DeviceInfo device, String name) {
        return newContext(device, Objects.requireNonNull(name, "name"));
    }

    private DeviceContext newContext(DeviceInfo device, @Nullable String name) {
        Objects.requireNonNull(device, "device");
        ContextHandle handle;
        try {
            handle = provider.deviceVerbs().openDevice(device);
        } catch (VerbsException e) {
            throw e.about("device " + device.name());
        }
        DeviceContext ctx;
        try {
            ctx = new DeviceContext(this, device, handle, provider.deviceVerbs().queryDevice(handle), name);
        } catch (RuntimeException e) {
            // Nothing may be left allocated when opening fails half-way.
            try {
                provider.deviceVerbs().closeDevice(handle);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e instanceof VerbsException v ? v.about("device " + device.name()) : e;
        }
        register(ctx);
        return ctx;
    }

    /**
     * The device named {@code nameOrGuid}; a clear {@code ENODEV} naming the devices that do exist
     * otherwise.
     */
    public DeviceInfo findDevice(String nameOrGuid) {
        Objects.requireNonNull(nameOrGuid, "nameOrGuid");
        List<DeviceInfo> all = provider.deviceVerbs().devices();
        for (DeviceInfo d : all) {
            if (d.name().equals(nameOrGuid)) {
                return d;
            }
        }
        Long guid = parseGuidOrNull(nameOrGuid);
        if (guid != null) {
            for (DeviceInfo d : all) {
                if (d.guid() == guid) {
                    return d;
                }
            }
        }
        String present = all.isEmpty() ? "none (no RDMA device on this machine; use the simulated provider)"
                : all.stream().map(d -> d.name() + " (GUID " + d.guidHex() + ")").toList().toString();
        throw new VerbsException("ibv_open_device", "device " + nameOrGuid, Errno.ENODEV,
                "no RDMA device with that name or GUID; devices present: " + present);
    }

    private static @Nullable Long parseGuidOrNull(String text) {
        try {
            return DeviceInfo.parseGuid(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    // ---- the connection manager -----------------------------------------------------------------

    /**
     * {@code rdma_create_event_channel(3)}: the channel CM ids report on. Reports name it by kind and number.
     *
     * @throws io.rdmaverbs.verbs.provider.ProviderUnavailableException when the provider has no connection
     *     manager (the native one without librdmacm)
     */
    public CmEventChannel createCmEventChannel() {
        return newCmEventChannel(null);
    }

    /** {@link #createCmEventChannel()}, named {@code name} in reports. */
    public CmEventChannel createCmEventChannel(String name) {
        return newCmEventChannel(Objects.requireNonNull(name, "name"));
    }

    private CmEventChannel newCmEventChannel(@Nullable String name) {
        io.rdmaverbs.verbs.provider.ConnectionVerbs cm = provider.connectionVerbs();
        CmEventChannel channel;
        try {
            channel = new CmEventChannel(this, cm, cm.createEventChannel(), name);
        } catch (VerbsException e) {
            throw e.about("a new CM event channel");
        }
        register(channel);
        return channel;
    }

    /**
     * The graph's resource for librdmacm's context {@code handle} ({@code id->verbs}): the one already
     * adopted, or a new adopted {@link DeviceContext}.
     */
    DeviceContext adoptContext(ContextHandle handle) {
        synchronized (adopted) {
            DeviceContext known = adopted.get(handle);
            if (known != null && known.isOpen()) {
                return known;
            }
            DeviceContext ctx;
            try {
                ctx = DeviceContext.adopted(this, handle, provider.deviceVerbs().queryDevice(handle));
            } catch (VerbsException e) {
                throw e.about("librdmacm's context of " + handle.device().name());
            }
            adopted.put(handle, ctx);
            register(ctx);
            return ctx;
        }
    }

    /** An adopted context left the graph; a later id resolved to it adopts it anew. */
    void contextReleased(DeviceContext ctx) {
        synchronized (adopted) {
            adopted.remove(ctx.handle, ctx);
        }
    }

    // ---- the graph ------------------------------------------------------------------------------

    /** Every live resource, oldest first. */
    public List<VerbsResource> resources() {
        return List.copyOf(live.values());
    }

    /** The open device contexts. */
    public List<DeviceContext> contexts() {
        List<DeviceContext> out = new ArrayList<>();
        for (VerbsResource r : live.values()) {
            if (r instanceof DeviceContext c) {
                out.add(c);
            }
        }
        return out;
    }

    public Optional<VerbsResource> find(long id) {
        return Optional.ofNullable(live.get(id));
    }

    /** Every stuck reference in the graph: what would make some release fail, hang, leak or break now. */
    public List<StuckReference> stuckReferences() {
        List<StuckReference> out = new ArrayList<>();
        for (VerbsResource r : live.values()) {
            r.addStuckReferences(out);
        }
        return out;
    }

    /** The plan for closing everything. */
    public ClosePlan planClose(ClosePolicy policy) {
        return Teardown.under(policy).plan(live.values(), true).plan();
    }

    /**
     * The plan for closing {@code resources} under {@code policy}. STRICT closes exactly those
     * resources, children first, and lists what would refuse (holders outside the set, leases,
     * unacknowledged CQ events); CASCADE and ATTEMPT include every dependent and list what the close
     * will clear on the way.
     */
    public ClosePlan planClose(Collection<? extends VerbsResource> resources, ClosePolicy policy) {
        return Teardown.under(policy).plan(resources).plan();
    }

    /** Closes everything, cascading; see {@link #close(ClosePolicy)}. */
    @Override
    public void close() {
        close(ClosePolicy.CASCADE);
    }

    /** Closes every live resource under {@code policy}, children first. */
    public CloseReport close(ClosePolicy policy) {
        return Teardown.under(policy).close(live.values(), true);
    }

    /**
     * Closes {@code resources} under {@code policy} in the order of {@link #planClose}. A STRICT close
     * whose plan is blocked touches nothing and reports every resource as left, with the reason. A
     * native failure leaves that resource (and what it depends on) open, and the close goes on with
     * the rest.
     */
    public CloseReport close(Collection<? extends VerbsResource> resources, ClosePolicy policy) {
        return Teardown.under(policy).close(resources);
    }

    // ---- package-private wiring -----------------------------------------------------------------

    long nextId() {
        return ids.incrementAndGet();
    }

    /** The id given last: no resource of this graph has a larger one yet. */
    long lastId() {
        return ids.get();
    }

    /** A creation verb: entered parents stay alive (cannot begin closing) until the child is linked. */
    <R extends VerbsResource> R create(VerbsResource subject, List<? extends VerbsResource> guards,
            Creation<R> creation) {
        int entered = 0;
        try {
            for (VerbsResource g : guards) {
                g.enter();
                entered++;
            }
            R r;
            try {
                r = creation.create();
            } catch (VerbsException e) {
                throw e.about(subject.ref().toString());
            }
            register(r);
            return r;
        } finally {
            for (int i = 0; i < entered; i++) {
                guards.get(i).exit();
            }
        }
    }

    /** The native part of a creation verb, returning the new resource. */
    @FunctionalInterface
    interface Creation<R extends VerbsResource> {
        R create();
    }

    void register(VerbsResource r) {
        r.attach();
        live.put(r.id(), r);
        Handle h = r.eventHandle();
        if (h != null) {
            byHandle.put(h, r);
        }
        notifyListeners("created", r, l -> l.created(r));
    }

    void unregister(VerbsResource r) {
        live.remove(r.id());
        Handle h = r.eventHandle();
        if (h != null) {
            byHandle.remove(h);
        }
    }

    @Nullable VerbsResource resourceOf(@Nullable Handle handle) {
        return handle == null ? null : byHandle.get(handle);
    }

    void fireClosed(VerbsResource r) {
        notifyListeners("closed", r, l -> l.closed(r));
    }

    void fireCloseFailed(VerbsResource r, VerbsException e) {
        notifyListeners("closeFailed", r, l -> l.closeFailed(r, e));
    }

    void fireCloseRefused(VerbsResource r, CloseRefusedException e) {
        notifyListeners("closeRefused", r, l -> l.closeRefused(r, e));
    }

    void fireAsyncEvent(AsyncEvent e) {
        notifyListeners("asyncEvent", e, l -> l.asyncEvent(e));
    }

    /**
     * Tells every listener, containing what one throws: the change it observes has already happened
     * natively (a region registered, a QP destroyed), so a listener's failure must neither undo it nor
     * stop the others from hearing of it, nor abort the close or creation that made it.
     */
    private void notifyListeners(String callback, Object subject, Consumer<VerbsListener> call) {
        for (VerbsListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                LOG.log(Level.WARNING, () -> "listener " + l + " threw from " + callback + "(" + subject
                        + "); ignored, the graph is unchanged by it", e);
            }
        }
    }
}
