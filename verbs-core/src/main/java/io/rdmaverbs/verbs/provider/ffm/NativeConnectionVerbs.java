package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CmChannelHandle;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.provider.CmEventHandle;
import io.rdmaverbs.verbs.provider.CmIdHandle;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.Handle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;

import org.jspecify.annotations.Nullable;

/**
 * The connection verbs of {@link NativeVerbsProvider}, on librdmacm ({@link RdmaCm}). Every handle is
 * checked in Java (foreign, destroyed) before librdmacm sees it, as in the other verb groups: librdmacm
 * dereferences whatever it is given.
 *
 * <p>librdmacm opens one {@code ibv_context} per device itself and keeps it for the life of the process;
 * {@link #context} adopts it once per {@code ibv_context *}, so the PDs, CQs and channels of a connection
 * are made with the ordinary verb groups and its QP ({@link #createQp}) is an ordinary {@link NativeQp}.
 */
final class NativeConnectionVerbs implements ConnectionVerbs {

    private final NativeVerbsProvider provider;
    private final RdmaCm cm;
    private final NativeDeviceVerbs deviceVerbs;
    private final NativeQpVerbs qpVerbs;
    /* Address -> handle, to turn event->id back into the caller's id. */
    private final Map<Long, NativeCmId> ids = new ConcurrentHashMap<>();
    /* librdmacm's contexts by address: one handle per ibv_context, whichever id reports it. */
    private final Map<Long, NativeContext> adopted = new ConcurrentHashMap<>();
    private final GidAddresses gids = new GidAddresses(GidAddresses.SYSFS);

    NativeConnectionVerbs(NativeVerbsProvider provider, RdmaCm cm, NativeDeviceVerbs deviceVerbs,
            NativeQpVerbs qpVerbs) {
        this.provider = provider;
        this.cm = cm;
        this.deviceVerbs = deviceVerbs;
        this.qpVerbs = qpVerbs;
    }

    // ---- channels and ids -------------------------------------------------------------------------

    @Override
    public CmChannelHandle createEventChannel() {
        MemorySegment channel = cm.createEventChannel();
        int fd = RdmaCm.fd(channel);
        MemorySegment state = CallState.current();
        WakeDescriptor wake;
        try {
            wake = WakeDescriptor.open(state, "CM event channel fd " + fd);
        } catch (VerbsException e) {
            cm.destroyEventChannel(channel);
            throw e;
        }
        // getEvent polls the descriptor with a timeout, then reads; the read must never block.
        int errno = EventDescriptors.makeNonBlocking(fd, state);
        if (errno != 0) {
            cm.destroyEventChannel(channel);
            wake.close();
            throw new VerbsException("fcntl", "rdma_event_channel fd " + fd, Errno.of(errno),
                    "could not make the CM event channel's descriptor non-blocking");
        }
        return new NativeCmChannel(provider, channel, fd, wake);
    }

    /**
     * Void and unrefusing, as {@link ConnectionVerbs#destroyEventChannel} says: the kernel destroys the
     * ids still on the channel, and librdmacm leaks their memory; their handles (and those of their
     * unacknowledged events) become unusable here, so nothing reaches that memory again.
     */
    @Override
    public void destroyEventChannel(CmChannelHandle channel) {
        NativeCmChannel ch = provider.live(Objects.requireNonNull(channel, "channel"), NativeCmChannel.class);
        cm.destroyEventChannel(ch.pointer());
        ch.markDestroyed();
        ch.wake().close();
        for (NativeCmId id : List.copyOf(ids.values())) {
            if (id.channel() == ch) {
                id.markDestroyed();
                ids.remove(id.pointer().address(), id);
            }
        }
    }

    @Override
    public CmIdHandle createId(CmChannelHandle channel, CmPortSpace portSpace) {
        NativeCmChannel ch = provider.live(Objects.requireNonNull(channel, "channel"), NativeCmChannel.class);
        int ps = switch (Objects.requireNonNull(portSpace, "portSpace")) {
            case TCP -> RdmaCmId.RDMA_PS_TCP;
            case UDP -> RdmaCmId.RDMA_PS_UDP;
        };
        NativeCmId id = new NativeCmId(provider, cm.createId(ch.pointer(), MemorySegment.NULL, ps), ch, portSpace);
        ids.put(id.pointer().address(), id);
        return id;
    }

    /**
     * Refused while an event returned for the id (for a listener, a CONNECT_REQUEST that arrived on it)
     * is unacknowledged: {@code rdma_destroy_id} waits for those acks, forever on this thread. A QP on the
     * id is left alive, as librdmacm leaves it: destroy it first ({@link #destroyQp}).
     */
    @Override
    public void destroyId(CmIdHandle id) {
        NativeCmId cmId = id(id);
        List<String> held = cmId.unacknowledged();
        if (!held.isEmpty()) {
            throw new IllegalStateException("rdma_destroy_id(" + RdmaCm.describe(cmId.pointer())
                    + ") would block forever: " + String.join(", ", held) + " returned by rdma_get_cm_event and not "
                    + "acknowledged (rdma_get_cm_event(3)); acknowledge it (ackEvent) first");
        }
        cm.destroyId(cmId.pointer());
        cmId.markDestroyed();
        ids.remove(cmId.pointer().address(), cmId);
    }

    @Override
    public void bindAddr(CmIdHandle id, InetSocketAddress address) {
        cm.bindAddr(id(id).pointer(), Objects.requireNonNull(address, "address"));
    }

    // ---- resolution and the handshake -------------------------------------------------------------

    @Override
    public void resolveAddr(CmIdHandle id, @Nullable InetSocketAddress source, InetSocketAddress destination,
            Duration timeout) {
        NativeCmId cmId = id(id);
        cm.resolveAddr(cmId.pointer(), source, Objects.requireNonNull(destination, "destination"), millis(timeout));
    }

    @Override
    public void resolveRoute(CmIdHandle id, Duration timeout) {
        NativeCmId cmId = id(id);
        cm.resolveRoute(cmId.pointer(), millis(timeout));
    }

    @Override
    public void listen(CmIdHandle id, int backlog) {
        cm.listen(id(id).pointer(), backlog);
    }

    /** librdmacm moves the id's QP to RTR and RTS when the REP arrives, so the QP must still be alive. */
    @Override
    public void connect(CmIdHandle id, CmConnectionParams params) {
        NativeCmId cmId = withLiveQp(id, "rdma_connect");
        cm.connect(cmId.pointer(), param(params));
    }

    @Override
    public void accept(CmIdHandle id, CmConnectionParams params) {
        NativeCmId cmId = withLiveQp(id, "rdma_accept");
        cm.accept(cmId.pointer(), param(params));
    }

    @Override
    public void reject(CmIdHandle id, byte[] privateData) {
        cm.reject(id(id).pointer(), Objects.requireNonNull(privateData, "privateData"));
    }

    /** librdmacm moves the id's QP to ERR first, so the QP must still be alive. */
    @Override
    public void disconnect(CmIdHandle id) {
        cm.disconnect(withLiveQp(id, "rdma_disconnect").pointer());
    }

    // ---- QPs on ids ---------------------------------------------------------------------------------

    /**
     * {@code rdma_create_qp(3)} with the caller's PD and both CQs, all of {@link #context context(id)}:
     * librdmacm would otherwise create CQs of its own for a missing one, which only
     * {@code rdma_destroy_qp} frees (see {@link #destroyQp}). The QP is a {@link NativeQp} like any other:
     * posts, polls, queries and async events work through the QP verb group.
     */
    @Override
    public QpHandle createQp(CmIdHandle id, QpInitSpec spec) {
        NativeCmId cmId = id(id);
        Objects.requireNonNull(spec, "spec");
        QpType expected = cmId.portSpace() == CmPortSpace.TCP ? QpType.RC : QpType.UD;
        if (spec.type() != expected) {
            throw new IllegalArgumentException("an RDMA_PS_" + cmId.portSpace() + " id takes " + expected
                    + " QPs, not " + spec.type() + " (rdma_create_qp(3))");
        }
        NativeContext context = context(cmId);
        if (context == null) {
            throw new VerbsException("rdma_create_qp", RdmaCm.describe(cmId.pointer()), Errno.EINVAL,
                    "the id has no device yet (id->verbs is NULL): bind it or resolve its address first");
        }
        NativeQp existing = cmId.qp();
        if (existing != null) {
            throw new VerbsException("rdma_create_qp", RdmaCm.describe(cmId.pointer()), Errno.EINVAL,
                    "the id already has " + existing.describe());
        }
        NativePd pd = provider.live(VerbChecks.required(spec.pd(), "rdma_create_qp needs a protection domain"),
                NativePd.class);
        NativeCq sendCq = provider.live(VerbChecks.required(spec.sendCq(), "rdma_create_qp needs a send CQ here: "
                + "without one librdmacm creates a CQ of its own"), NativeCq.class);
        NativeCq recvCq = provider.live(VerbChecks.required(spec.recvCq(), "rdma_create_qp needs a receive CQ here: "
                + "without one librdmacm creates a CQ of its own"), NativeCq.class);
        requireOf(cmId, context, pd, pd.context());
        requireOf(cmId, context, sendCq, sendCq.context());
        requireOf(cmId, context, recvCq, recvCq.context());
        if (spec.srq() != null) {
            NativeSrq srq = provider.live(spec.srq(), NativeSrq.class);
            requireOf(cmId, context, srq, srq.context());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = qpVerbs.initAttr(arena, spec);
            MemorySegment qp = cm.createQp(cmId.pointer(), pd.pointer(), attr);
            // rdma_create_qp copies the init attributes back: the capabilities are what the device granted.
            QpCapabilities granted = IbvQpCap.read(attr, IbvQpInitAttrEx.CAP);
            NativeQp handle = qpVerbs.register(qp, context, expected, spec.capabilities(), granted);
            cmId.qp(handle);
            return handle;
        }
    }

    /**
     * {@code rdma_destroy_qp(3)} without its silence. In librdmacm (v44 and since) it is
     * {@code ibv_destroy_qp(id->qp); id->qp = NULL; ucma_destroy_cqs(id);}, and {@code ucma_destroy_cqs}
     * frees only the CQs and completion channels librdmacm created itself in {@code rdma_create_qp_ex} for
     * CQs the caller did not give ({@code id->recv_cq}, {@code id->send_cq}, their channels). This provider
     * always gives both CQs ({@link #createQp}), so those members stay NULL and that step does nothing: the
     * QP verb group's {@code ibv_destroy_qp} followed by clearing {@code id->qp} is the same call, except that
     * a failure (EBUSY, say) is a {@link VerbsException} and leaves the id with its QP, so it can be retried.
     */
    @Override
    public void destroyQp(CmIdHandle id) {
        NativeCmId cmId = id(id);
        NativeQp qp = cmId.qp();
        if (qp == null) {
            throw new IllegalStateException(RdmaCm.describe(cmId.pointer()) + " has no QP (rdma_create_qp)");
        }
        qpVerbs.destroyQp(qp);
        RdmaCmId.QP.set(cmId.pointer(), MemorySegment.NULL);
        cmId.qp(null);
    }

    // ---- events -------------------------------------------------------------------------------------

    /**
     * {@code poll(2)} on the channel's descriptor and its wake descriptor, then {@code rdma_get_cm_event}.
     * The id of a CONNECT_REQUEST is new: it becomes a handle here, on the listener's channel.
     */
    @Override
    public @Nullable CmEventHandle getEvent(CmChannelHandle channel, long timeoutMillis) {
        NativeCmChannel ch = channel(channel);
        if (timeoutMillis == 0) {
            // The descriptor is non-blocking, so the read alone cannot block: no poll, which would
            // also drain a wake meant for a waiter in awaitEventReady.
            return read(ch);
        }
        MemorySegment state = CallState.current();
        long deadline = EventDescriptors.deadline(timeoutMillis);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollFds = EventDescriptors.pollFds(arena);
            while (EventDescriptors.awaitReadable(ch, ch.fd(), ch.wake(), pollFds, deadline, state)) {
                NativeCmEvent event = read(ch);
                if (event != null) {
                    return event;
                }
            }
            return null;
        }
    }

    /** {@code poll(2)} on the channel's descriptor and its wake descriptor, as {@link #getEvent} waits. */
    @Override
    public boolean awaitEventReady(CmChannelHandle channel, long timeoutMillis) {
        NativeCmChannel ch = channel(channel);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            return EventDescriptors.awaitReadable(ch, ch.fd(), ch.wake(), EventDescriptors.pollFds(arena),
                    EventDescriptors.deadline(timeoutMillis), state);
        }
    }

    /**
     * {@code rdma_get_cm_event} on the non-blocking descriptor: the event, or null on EAGAIN (another
     * thread read it since the poll, or librdmacm consumed it internally).
     */
    private @Nullable NativeCmEvent read(NativeCmChannel ch) {
        CmEvent event;
        try {
            event = cm.getEvent(ch.pointer());
        } catch (VerbsException e) {
            if (Errno.EAGAIN.equals(e.errno()) || Errno.EINTR.equals(e.errno())) {
                return null;
            }
            throw e;
        }
        return held(ch, event);
    }

    private NativeCmEvent held(NativeCmChannel channel, CmEvent event) {
        NativeCmId listener = InlineVerbs.isNull(event.listenId()) ? null : ids.get(event.listenId().address());
        NativeCmId id;
        if (event.type() == RdmaCmEventType.CONNECT_REQUEST && listener != null) {
            id = new NativeCmId(provider, event.id(), channel, listener.portSpace());
            ids.put(id.pointer().address(), id);
        } else {
            id = InlineVerbs.isNull(event.id()) ? null : ids.get(event.id().address());
        }
        if (id == null) {
            // Acked so that whoever owns that id can still destroy it.
            cm.ackEvent(event);
            throw new IllegalStateException(event.type().cName() + " on " + channel.describe() + " for rdma_cm_id@0x"
                    + Long.toHexString(event.id().address()) + ", which this provider did not create");
        }
        NativeCmEvent handle = new NativeCmEvent(provider, event, id, listener);
        id.hold(handle);
        if (listener != null) {
            listener.hold(handle);
        }
        return handle;
    }

    @Override
    public void ackEvent(CmEventHandle event) {
        NativeCmEvent ev = provider.identify(Objects.requireNonNull(event, "event"), NativeCmEvent.class);
        synchronized (ev) {
            if (ev.isDestroyed()) {
                throw new IllegalStateException(ev.describe() + " (" + ev.type().cName() + ") was already acknowledged");
            }
            if (ev.id().channel().isDestroyed()) {
                throw new IllegalStateException(ev.describe() + " (" + ev.type().cName() + ") went with its event "
                        + "channel " + ev.id().channel().describe() + " (rdma_destroy_event_channel)");
            }
            cm.ackEvent(ev.event());
            ev.markDestroyed();
        }
        ev.id().release(ev);
        NativeCmId listener = ev.listenId();
        if (listener != null) {
            listener.release(ev);
        }
    }

    @Override
    public void wakeEventWaiters(CmChannelHandle channel) {
        NativeCmChannel ch = provider.identify(Objects.requireNonNull(channel, "channel"), NativeCmChannel.class);
        // No liveness check: the wake touches only the descriptor, which is a no-op once closed.
        ch.wake().wake();
    }

    // ---- queries ------------------------------------------------------------------------------------

    /** {@code id->verbs}, adopted once per context: the same handle for every id on that device. */
    @Override
    public @Nullable NativeContext context(CmIdHandle id) {
        MemorySegment verbs = RdmaCmId.VERBS.get(id(id).pointer());
        if (InlineVerbs.isNull(verbs)) {
            return null;
        }
        return adopted.computeIfAbsent(verbs.address(), address -> deviceVerbs.adopt(verbs));
    }

    @Override
    public @Nullable QpHandle qp(CmIdHandle id) {
        return id(id).qp();
    }

    @Override
    public @Nullable InetSocketAddress localAddress(CmIdHandle id) {
        return RdmaCm.localAddress(id(id).pointer()).orElse(null);
    }

    @Override
    public @Nullable InetSocketAddress peerAddress(CmIdHandle id) {
        return RdmaCm.peerAddress(id(id).pointer()).orElse(null);
    }

    // ---- checks -------------------------------------------------------------------------------------

    @Override
    public List<InetAddress> addresses(String deviceName) {
        return gids.of(deviceName);
    }

    private NativeCmChannel channel(@Nullable CmChannelHandle channel) {
        return provider.live(Objects.requireNonNull(channel, "channel"), NativeCmChannel.class);
    }

    private NativeCmId id(@Nullable CmIdHandle id) {
        return provider.live(Objects.requireNonNull(id, "id"), NativeCmId.class);
    }

    /** The id, refused when the QP on it was destroyed behind its back: librdmacm would modify freed memory. */
    private NativeCmId withLiveQp(CmIdHandle id, String verb) {
        NativeCmId cmId = id(id);
        NativeQp qp = cmId.qp();
        if (qp != null && qp.isDestroyed()) {
            throw new IllegalStateException(verb + "(" + RdmaCm.describe(cmId.pointer()) + "): its QP "
                    + qp.describe() + " was destroyed with the QP verbs, and id->qp still points at it; release it "
                    + "with destroyQp(id) instead");
        }
        return cmId;
    }

    private static void requireOf(NativeCmId id, NativeContext context, Handle resource, NativeContext owner) {
        if (owner != context) {
            throw new VerbsException("rdma_create_qp", RdmaCm.describe(id.pointer()), Errno.EINVAL,
                    resource.describe() + " belongs to " + owner.describe() + ", not to the id's context "
                            + context.describe() + " (id->verbs): make the PD and CQs in context(id)");
        }
    }

    private static CmConnParam param(CmConnectionParams params) {
        Objects.requireNonNull(params, "params");
        return new CmConnParam(params.privateData(), params.responderResources(), params.initiatorDepth(), 0,
                params.retryCount(), params.rnrRetryCount(), false, 0);
    }

    private static int millis(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        return (int) Math.max(1, Math.min(timeout.toMillis(), Integer.MAX_VALUE));
    }
}
