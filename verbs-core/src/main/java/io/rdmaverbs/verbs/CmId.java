package io.rdmaverbs.verbs;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.StuckReference.Consequence;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.provider.CmIdHandle;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;

import org.jspecify.annotations.Nullable;

/**
 * A CM id ({@code struct rdma_cm_id}, {@code rdma_create_id(3)}), on its {@link CmEventChannel}: what
 * listens, connects, or answers one connection request. Its {@link #role()} follows the verbs called on
 * it and the events its channel delivers; calls its role rules out are refused before the verb, naming
 * the id, the verb and the role. Once bound or resolved it has a device {@link #context()}: librdmacm's
 * own, {@linkplain DeviceContext#isAdopted() adopted} by the graph, on which its QP's PD and CQs must be.
 *
 * <p>{@code rdma_destroy_id(3)} blocks until every event of the id is acknowledged, leaves the id's QP
 * behind, and ends a live connection under the application: the graph refuses a strict close in each
 * case. A cascade close disconnects (waiting up to the channel's {@link CmEventChannel#disconnectTimeout()}
 * for DISCONNECTED), destroys the QP (its work requests flush), acknowledges the id's events, rejects and
 * destroys the requests a listening id left unanswered, then destroys the id.
 */
public final class CmId extends VerbsResource {

    private static final System.Logger LOG = System.getLogger(CmId.class.getName());
    /** How long one wait for DISCONNECTED stays in {@code rdma_get_cm_event} before it looks at the role again. */
    private static final long DISCONNECT_SLICE_MILLIS = 20;

    final CmIdHandle handle;
    private final ConnectionVerbs cm;
    private final CmEventChannel channel;
    /** The listening id a passive id's request arrived on; null for ids the application created. */
    private final @Nullable CmId listener;
    /** Of a listening id: the passive ids of its requests, until they are accepted, rejected or closed. */
    private final Set<CmId> unanswered = ConcurrentHashMap.newKeySet();
    private volatile @Nullable DeviceContext context;
    private volatile @Nullable QueuePair queuePair;
    private volatile CmIdRole role;
    private volatile boolean addressResolved;
    private volatile boolean routeResolved;
    /** Whether this side's {@code rdma_disconnect} succeeded; its DISCONNECTED may still be on the way. */
    private volatile boolean disconnectSent;
    /** Whether this side called {@code rdma_disconnect}, whatever it answered: the one "disconnect sent" fact. */
    private volatile boolean disconnectRequested;
    /** See {@link #isEstablishedAfterDisconnect}. */
    private volatile boolean establishedAfterDisconnect;

    CmId(CmEventChannel channel, CmIdHandle handle, CmIdRole role, @Nullable CmId listener, @Nullable String name) {
        super(channel.verbs, ResourceKind.CM_ID, List.of(channel), name);
        this.handle = handle;
        this.cm = channel.cm;
        this.channel = channel;
        this.role = role;
        this.listener = listener;
    }

    /** The device context librdmacm resolved the id to ({@code id->verbs}); null until bound or resolved. */
    @Override
    public @Nullable DeviceContext context() {
        return context;
    }

    public CmEventChannel channel() {
        return channel;
    }

    public CmPortSpace portSpace() {
        return handle.portSpace();
    }

    /** Where the id is now, from the verbs called and the events delivered. */
    public CmIdRole role() {
        return role;
    }

    /** The listening id whose request made this passive id; null for an id made with {@code createId}. */
    public @Nullable CmId listener() {
        return listener;
    }

    /** The QP created on the id ({@code id->qp}), or null. */
    public @Nullable QueuePair queuePair() {
        return queuePair;
    }

    /** {@code rdma_get_local_addr(3)}; null while unbound. */
    public @Nullable InetSocketAddress localAddress() {
        enter();
        try {
            return cm.localAddress(handle);
        } finally {
            exit();
        }
    }

    /** {@code rdma_get_peer_addr(3)}; null before an address was resolved or a request came. */
    public @Nullable InetSocketAddress peerAddress() {
        enter();
        try {
            return cm.peerAddress(handle);
        } finally {
            exit();
        }
    }

    // ---- addresses and routes ---------------------------------------------------------------------

    /** {@code rdma_bind_addr(3)}: port 0 picks a free one. Only on an {@link CmIdRole#IDLE} id. */
    public void bind(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        requireResolvedAddress(address);
        call("rdma_bind_addr", () -> {
            requireRole("rdma_bind_addr", CmIdRole.IDLE, "bind a new id");
            moveAcross(CmIdRole.BOUND, () -> cm.bindAddr(handle, address));
            adoptContextIfResolved();
        });
    }

    /**
     * {@code rdma_listen(3)} on a bound id: requests arrive on the channel as CONNECT_REQUEST events,
     * each with a new {@link CmIdRole#PASSIVE} id.
     *
     * @param backlog the requests queued before they are read; 0 for the CM's default
     */
    public void listen(int backlog) {
        if (backlog < 0) {
            throw new IllegalArgumentException("a listen backlog is 0 (the CM's default) or more, was " + backlog);
        }
        call("rdma_listen", () -> {
            requireRole("rdma_listen", CmIdRole.BOUND, "bind it first (rdma_bind_addr)");
            moveAcross(CmIdRole.LISTENING, () -> cm.listen(handle, backlog));
        });
    }

    /**
     * {@code rdma_resolve_addr(3)}: binds the id (to {@code source}, or to the device that reaches
     * {@code destination}); RDMA_CM_EVENT_ADDR_RESOLVED, ADDR_ERROR or UNREACHABLE follows on the channel.
     */
    public void resolveAddress(@Nullable InetSocketAddress source, InetSocketAddress destination, Duration timeout) {
        Objects.requireNonNull(destination, "destination");
        requireResolvedAddress(destination);
        if (source != null) {
            requireResolvedAddress(source);
        }
        requirePositive(timeout);
        call("rdma_resolve_addr", () -> {
            if (role != CmIdRole.IDLE && role != CmIdRole.BOUND) {
                throw refused("rdma_resolve_addr", "resolve an address on a new or bound id");
            }
            moveAcross(CmIdRole.RESOLVING, () -> cm.resolveAddr(handle, source, destination, timeout));
            adoptContextIfResolved();
        });
    }

    /** {@code rdma_resolve_route(3)}, after ADDR_RESOLVED: ROUTE_RESOLVED or ROUTE_ERROR follows. */
    public void resolveRoute(Duration timeout) {
        requirePositive(timeout);
        call("rdma_resolve_route", () -> {
            if (role != CmIdRole.RESOLVING || !addressResolved) {
                throw refused("rdma_resolve_route", "resolve its address first (rdma_resolve_addr, then "
                        + "RDMA_CM_EVENT_ADDR_RESOLVED)");
            }
            cm.resolveRoute(handle, timeout);
        });
    }

    // ---- the QP -----------------------------------------------------------------------------------

    /**
     * {@code rdma_create_qp(3)}: a QP bound to the id, which the CM moves to RTS as the connection is made.
     * The PD and CQs must be on the id's {@link #context()} (librdmacm's own); the type follows the port
     * space (RC for RDMA_PS_TCP, UD for RDMA_PS_UDP). Its release is {@code rdma_destroy_qp(3)}.
     */
    public QueuePair createQueuePair(ProtectionDomain pd, QueuePairSpec spec) {
        return newQueuePair(pd, spec, null);
    }

    /** {@link #createQueuePair(ProtectionDomain, QueuePairSpec)}, named {@code name} in reports. */
    public QueuePair createQueuePair(ProtectionDomain pd, QueuePairSpec spec, String name) {
        return newQueuePair(pd, spec, Objects.requireNonNull(name, "name"));
    }

    private QueuePair newQueuePair(ProtectionDomain pd, QueuePairSpec spec, @Nullable String name) {
        Objects.requireNonNull(pd, "pd");
        Objects.requireNonNull(spec, "spec");
        QpType expected = portSpace() == CmPortSpace.TCP ? QpType.RC : QpType.UD;
        if (spec.type() != expected) {
            throw new IllegalArgumentException("an RDMA_PS_" + portSpace() + " id takes " + expected + " queue pairs, "
                    + "asked for " + spec.type());
        }
        DeviceContext ctx = context;
        if (ctx == null) {
            throw refused("rdma_create_qp", "it has no device context yet: bind it or resolve its address first");
        }
        if (queuePair != null) {
            throw refused("rdma_create_qp", "it already has " + Objects.requireNonNull(queuePair).ref());
        }
        requireOnContext(ctx, pd, "PD");
        requireOnContext(ctx, spec.sendCq(), "send CQ");
        CompletionQueue recvCq = spec.recvCq();
        SharedReceiveQueue srq = spec.srq();
        if (recvCq != null) {
            requireOnContext(ctx, recvCq, "receive CQ");
        }
        if (srq != null) {
            requireOnContext(ctx, srq, "SRQ");
        }
        ProtectionDomain.checkCapabilities(ctx.attributes(), spec.capabilities(), srq != null);
        List<VerbsResource> guards = new ArrayList<>(List.of(this, ctx, pd, spec.sendCq()));
        if (recvCq != null) {
            guards.add(recvCq);
        }
        if (srq != null) {
            guards.add(srq);
        }
        QpInitSpec init = new QpInitSpec(spec.type(), pd.handle, null, spec.sendCq().handle,
                recvCq == null ? null : recvCq.handle, srq == null ? null : srq.handle, spec.capabilities(),
                spec.signalAll());
        QueuePair qp = verbs.create(this, guards, () -> new QueuePair(ctx, pd, spec.sendCq(), recvCq, srq, this,
                underIdLock(() -> cm.createQp(handle, init)), name));
        queuePair = qp;
        return qp;
    }

    private void requireOnContext(DeviceContext ctx, VerbsResource r, String what) {
        if (r.verbs != verbs) {
            throw new IllegalArgumentException("the " + what + " " + r.ref() + " belongs to another resource graph");
        }
        if (r.context() != ctx) {
            throw new IllegalArgumentException("the " + what + " " + r.ref() + " is not on " + ref()
                    + "'s device context " + ctx.ref() + ": rdma_create_qp(3) takes a PD and CQs of id->verbs, "
                    + "librdmacm's own context; create them on cmId.context()");
        }
        r.checkOpen();
    }

    /**
     * The id's QP is gone: {@code rdma_destroy_qp}, which reports {@code ibv_destroy_qp}'s errno here. Under
     * the channel's id lock, so that no call that loaded {@code id->qp} is still using the QP it frees.
     */
    void destroyQueuePair() {
        runUnderIdLock(() -> {
            cm.destroyQp(handle);
            queuePair = null;
        });
    }

    // ---- the handshake ----------------------------------------------------------------------------

    /**
     * {@code rdma_connect(3)}, after ROUTE_RESOLVED: ESTABLISHED, REJECTED or UNREACHABLE follows. For
     * RDMA_PS_TCP the private data is at most {@value CmConnectionParams#MAX_CONNECT_PRIVATE_DATA} bytes.
     */
    public void connect(CmConnectionParams params) {
        Objects.requireNonNull(params, "params");
        requirePrivateData("rdma_connect", params.privateData(), CmConnectionParams.MAX_CONNECT_PRIVATE_DATA);
        callThroughQp("rdma_connect", () -> {
            if (role != CmIdRole.RESOLVING || !routeResolved) {
                throw refused("rdma_connect", "resolve its route first (rdma_resolve_route, then "
                        + "RDMA_CM_EVENT_ROUTE_RESOLVED)");
            }
            moveAcross(CmIdRole.CONNECTING, () -> cm.connect(handle, params));
        });
    }

    /**
     * {@code rdma_accept(3)} of a {@link CmIdRole#PASSIVE} id: its QP moves to RTS and both sides get
     * ESTABLISHED. For RDMA_PS_TCP at most {@value CmConnectionParams#MAX_ACCEPT_PRIVATE_DATA} bytes of
     * private data.
     */
    public void accept(CmConnectionParams params) {
        Objects.requireNonNull(params, "params");
        requirePrivateData("rdma_accept", params.privateData(), CmConnectionParams.MAX_ACCEPT_PRIVATE_DATA);
        callThroughQp("rdma_accept", () -> {
            requireRole("rdma_accept", CmIdRole.PASSIVE, "only the id of a CONNECT_REQUEST is accepted");
            moveAcross(CmIdRole.CONNECTING, () -> cm.accept(handle, params));
            answered();
        });
    }

    /**
     * {@code rdma_reject(3)} of a {@link CmIdRole#PASSIVE} id: the requester gets REJECTED with this
     * private data (at most {@value CmConnectionParams#MAX_REJECT_PRIVATE_DATA} bytes). Close the id then.
     */
    public void reject(byte[] privateData) {
        Objects.requireNonNull(privateData, "privateData");
        requirePrivateData("rdma_reject", privateData, CmConnectionParams.MAX_REJECT_PRIVATE_DATA);
        byte[] data = privateData.clone();
        call("rdma_reject", () -> {
            requireRole("rdma_reject", CmIdRole.PASSIVE, "only the id of a CONNECT_REQUEST is rejected");
            moveAcross(CmIdRole.REJECTED, () -> cm.reject(handle, data));
            answered();
        });
    }

    /**
     * {@code rdma_disconnect(3)}: the QP moves to ERR (its work requests flush) and both sides get
     * DISCONNECTED; on an id whose peer disconnected first it only answers. Refused on an id that was
     * never connected.
     */
    public void disconnect() {
        callThroughQp("rdma_disconnect", () -> {
            if (role == CmIdRole.IDLE || role == CmIdRole.BOUND || role == CmIdRole.LISTENING
                    || role == CmIdRole.RESOLVING) {
                throw refused("rdma_disconnect", "only a connected id disconnects");
            }
            sendDisconnect();
        });
    }

    /** {@code rdma_disconnect} itself, under the caller's lock on the id (and its QP). */
    private void sendDisconnect() {
        // Cleared before the call: an ESTABLISHED read while it runs may still have come before the kernel's CM was
        // established, and must make the next wait disconnect again.
        establishedAfterDisconnect = false;
        disconnectRequested = true;
        cm.disconnect(handle);
        disconnectSent = true;
    }

    /**
     * Whether this side called {@code rdma_disconnect(3)} on the id (to end the connection, or to answer the
     * peer's DISCONNECTED), whether or not librdmacm took it: a close then does not call it again.
     */
    public boolean disconnectRequested() {
        return disconnectRequested;
    }

    /** Whether librdmacm took this side's {@code rdma_disconnect(3)} (it returned success). */
    public boolean disconnectSent() {
        return disconnectSent;
    }

    /**
     * Whether the id's ESTABLISHED was read after this side's last {@code rdma_disconnect(3)} began: the RTU came
     * after that call, and the kernel's CM, not established then, may have had no DREQ to send (it sends one only
     * when established). {@link #disconnect()} once more sends it, and clears this.
     */
    public boolean isEstablishedAfterDisconnect() {
        return establishedAfterDisconnect;
    }

    // ---- events -----------------------------------------------------------------------------------

    /** Follows an event of this id that its channel read. */
    void eventArrived(CmEventType type) {
        switch (type) {
            case ADDR_RESOLVED -> addressResolved = true;
            case ROUTE_RESOLVED -> routeResolved = true;
            case ESTABLISHED -> {
                if (disconnectRequested) {
                    establishedAfterDisconnect = true;
                }
                role = CmIdRole.CONNECTED;
            }
            case DISCONNECTED -> role = CmIdRole.DISCONNECTED;
            case REJECTED -> role = CmIdRole.REJECTED;
            case ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, CONNECT_ERROR, DEVICE_REMOVAL -> role = CmIdRole.FAILED;
            default -> {
                // CONNECT_RESPONSE, TIMEWAIT_EXIT, ADDR_CHANGE, multicast: the role stays.
            }
        }
    }

    /** A CONNECT_REQUEST on this listening id made {@code passive}: unanswered until accepted or rejected. */
    void requestArrived(CmId passive) {
        unanswered.add(passive);
    }

    private void answered() {
        CmId l = listener;
        if (l != null) {
            l.unanswered.remove(this);
        }
    }

    /**
     * Adopts the device context librdmacm resolved the id to ({@code id->verbs}) the first time it has one,
     * as a parent of the id. Called while the id is entered.
     */
    void adoptContextIfResolved() {
        if (context != null) {
            return;
        }
        ContextHandle h = cm.context(handle);
        if (h == null) {
            return;
        }
        DeviceContext ctx = verbs.adoptContext(h);
        ctx.enter();
        try {
            addParent(ctx);
            context = ctx;
        } finally {
            ctx.exit();
        }
    }

    // ---- close ------------------------------------------------------------------------------------

    /**
     * Whether this side accepted the id's request ({@code rdma_accept(3)}) and its ESTABLISHED is not read
     * yet. The kernel may have the connection established already (the RTU came, and the peer has its
     * ESTABLISHED): to the application it is connected, and a close disconnects it.
     */
    public boolean isAcceptedAwaitingEstablished() {
        return role == CmIdRole.CONNECTING && listener != null;
    }

    /**
     * Whether a live connection would end under the application: connected, or accepted with its ESTABLISHED
     * not read yet (to the peer it may be connected already), and no disconnect called.
     */
    boolean isLiveConnection() {
        return (role == CmIdRole.CONNECTED || isAcceptedAwaitingEstablished()) && !disconnectSent;
    }

    private List<CmId> unansweredRequests() {
        List<CmId> out = new ArrayList<>();
        for (CmId p : unanswered) {
            if (p.isOpen() && p.role == CmIdRole.PASSIVE) {
                out.add(p);
            }
        }
        out.sort((a, b) -> Long.compare(a.id(), b.id()));
        return out;
    }

    /** The rule for a live connection, shared with the id's QP (whose destroy would end it as well). */
    StuckReference liveConnection(ResourceRef self, String verb) {
        InetSocketAddress peer = peerIfOpen();
        // No blocker: the hold is the connection itself, which no release earlier in a plan resolves.
        String state = isAcceptedAwaitingEstablished() ? " accepted a connection (its ESTABLISHED not read yet)"
                : " is connected";
        return new StuckReference(self, verb, Consequence.ABORTS_CONNECTION, null, Cause.LIVE_CONNECTION, null, null,
                self + ": " + ref() + state + (peer == null ? "" : " to " + peer) + ": " + verb
                        + " would end the connection under the application; disconnect first (rdma_disconnect(3)) so "
                        + "that the peer learns of it and the QP's work requests flush");
    }

    /** The peer's address, or null once a close began (reports are built then too). */
    private @Nullable InetSocketAddress peerIfOpen() {
        if (!tryEnter()) {
            return null;
        }
        try {
            return cm.peerAddress(handle);
        } catch (RuntimeException e) {
            return null;
        } finally {
            exit();
        }
    }

    @Override
    boolean hasOwnHolds() {
        return isLiveConnection() || !unansweredRequests().isEmpty();
    }

    @Override
    void ownStuckReferences(ResourceRef self, List<StuckReference> out) {
        if (isLiveConnection()) {
            out.add(liveConnection(self, releaseVerb()));
        }
        for (CmId p : unansweredRequests()) {
            // No blocker: the request's id is no dependent, so a plan does not order its release first.
            out.add(new StuckReference(self, releaseVerb(), Consequence.LEAKS, null, Cause.PENDING_CONNECTION_REQUEST,
                    null, null, self + " has the connection request " + p.ref() + " neither accepted nor rejected: "
                            + "its id outlives the listener and the requester waits for an answer; accept, reject or "
                            + "close it first"));
        }
    }

    /**
     * An unacknowledged event blocks {@code rdma_destroy_id} ({@code rdma_get_cm_event(3)}); a QP is left
     * behind by it ({@code rdma_destroy_id(3)}: {@code rdma_destroy_qp} first).
     */
    @Override
    StuckReference dependentReference(ResourceRef self, VerbsResource d) {
        if (d instanceof CmEvent e) {
            return new StuckReference(self, releaseVerb(), Consequence.BLOCKS_FOREVER, null,
                    Cause.UNACKNOWLEDGED_CM_EVENTS, d.ref(), null, self + " has " + e.type().cName() + " ("
                            + d.ref() + ") not acknowledged (rdma_ack_cm_event): rdma_destroy_id would block forever "
                            + "(rdma_destroy_id(3))");
        }
        if (d instanceof QueuePair) {
            return new StuckReference(self, releaseVerb(), Consequence.LEAKS, null, Cause.DEPENDENT_RESOURCE,
                    d.ref(), null, self + " still has its QP " + d.ref() + ": rdma_destroy_id does not destroy it "
                            + "(rdma_destroy_id(3): rdma_destroy_qp first), it would leak");
        }
        return super.dependentReference(self, d);
    }

    @Override
    List<String> cascadePreparations() {
        List<String> out = new ArrayList<>(super.cascadePreparations());
        if (isLiveConnection()) {
            out.add("disconnect (rdma_disconnect) and wait up to " + channel.disconnectTimeout()
                    + " for RDMA_CM_EVENT_DISCONNECTED");
        }
        for (CmId p : unansweredRequests()) {
            out.add("reject (rdma_reject) and close the connection request " + p.ref());
        }
        return out;
    }

    /** Its dependents (QP, events) are gone: disconnect if still needed, answer the requests left. */
    @Override
    void prepareCascade() {
        disconnectBeforeRelease();
        for (CmId p : unansweredRequests()) {
            try {
                p.reject(new byte[0]);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, () -> "rejecting " + p + " before closing " + this + " failed; closing it", e);
            }
            p.close(ClosePolicy.CASCADE);
        }
        // DISCONNECTED read while disconnecting was acknowledged at once; one another thread linked before
        // this id began closing is a dependent still.
        for (VerbsResource d : dependents()) {
            if (d instanceof CmEvent e) {
                e.close(ClosePolicy.CASCADE);
            }
        }
    }

    /**
     * A cascade's disconnect: {@code rdma_disconnect}, then up to the channel's disconnect timeout for
     * DISCONNECTED, reading the channel itself where it may (the events of other ids it reads are kept for
     * the channel's waiters). Gives up quietly: the destroy that follows disconnects the peer anyway.
     */
    void disconnectBeforeRelease() {
        if (!isLiveConnection()) {
            return;
        }
        if (!disconnectForRelease()) {
            return;
        }
        long deadline = System.nanoTime() + channel.disconnectTimeout().toNanos();
        // An accepted id reads its ESTABLISHED first, then DISCONNECTED; one whose RTU never comes ends on
        // CONNECT_ERROR or the timeout.
        while ((role == CmIdRole.CONNECTED || role == CmIdRole.CONNECTING) && System.nanoTime() - deadline < 0) {
            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            if (!channel.readFor(this, Math.min(left, DISCONNECT_SLICE_MILLIS))) {
                return;
            }
            // Read after the disconnect, ESTABLISHED says it may have sent nothing: once more.
            if (establishedAfterDisconnect && !disconnectForRelease()) {
                return;
            }
        }
    }

    private boolean disconnectForRelease() {
        try {
            runUnderIdLock(this::sendDisconnect);
            return true;
        } catch (VerbsException e) {
            LOG.log(Level.DEBUG, () -> "rdma_disconnect of " + this + " before its release failed", e);
            return false;
        }
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("role", role.name());
        m.put("portSpace", portSpace().name());
        m.put("channel", channel.name());
        QueuePair qp = queuePair;
        if (qp != null) {
            m.put("qp", qp.name());
        }
        CmId l = listener;
        if (l != null) {
            m.put("listener", l.name());
        }
        return m;
    }

    @Override
    CmIdHandle eventHandle() {
        return handle;
    }

    /**
     * {@code rdma_destroy_id} under the channel's event lock: no event of this id can be read and left
     * unlinked meanwhile (the id is closing, so one read from now on is acknowledged at once).
     */
    @Override
    void release() {
        runUnderIdLock(() -> cm.destroyId(handle));
        answered();
    }

    // ---- checks -----------------------------------------------------------------------------------

    private void call(String verb, Runnable action) {
        enter();
        try {
            action.run();
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } finally {
            exit();
        }
    }

    /**
     * {@link #call} for a librdmacm verb that reaches the id's QP through {@code id->qp}: also under the
     * channel's id lock, which {@link #destroyQueuePair} ({@code rdma_destroy_qp}) takes too, so the QP it
     * loaded cannot be freed under it. librdmacm loads {@code id->qp} without a lock of its own; a QP freed
     * between the load and its use is a SIGSEGV in libibverbs (seen on rxe: {@code rdma_disconnect}
     * answering a DISCONNECTED on a connection's lane while its close destroyed the QP).
     *
     * <p>The entry points of librdmacm (rdma-core v44, {@code librdmacm/cma.c}) that dereference
     * {@code id->qp}, and how the graph serialises each with {@code rdma_destroy_qp}:
     * <ul>
     * <li>{@code rdma_disconnect}: {@code ucma_shutdown} moves the QP to ERR (SQD on iWARP) with
     *     {@code ibv_modify_qp}: here.</li>
     * <li>{@code rdma_accept}: reads {@code qp->qp_num} and {@code qp->srq}, moves the QP to RTR and RTS,
     *     and back to ERR when the accept fails: here.</li>
     * <li>{@code rdma_connect}: reads {@code qp->qp_num} and {@code qp->srq} ({@code ucma_valid_param}
     *     checks the pointer): here.</li>
     * <li>{@code rdma_get_cm_event}: a CONNECT_RESPONSE moves the id's QP to RTR and RTS
     *     ({@code ucma_process_conn_resp}, with {@code ibv_set_ece}/{@code ibv_query_ece}), a REJECTED to ERR,
     *     a MULTICAST_JOIN attaches it ({@code ucma_process_join}): the channel reads events under the same
     *     lock ({@link CmEventChannel}).</li>
     * <li>{@code rdma_create_qp}, {@code rdma_create_qp_ex}: set {@code id->qp} after moving the new QP to
     *     INIT: {@link #createQueuePair}, under the lock.</li>
     * <li>{@code rdma_destroy_qp}: {@code ibv_destroy_qp(id->qp)}, then clears it: {@link #destroyQueuePair},
     *     under the lock.</li>
     * <li>Not bound by this project, so unreachable from it: {@code rdma_establish} (RTR and RTS),
     *     {@code rdma_leave_multicast} ({@code ibv_detach_mcast}), {@code rdma_destroy_ep} (which calls
     *     {@code rdma_destroy_qp}), {@code rdma_set_local_ece} and {@code rdma_get_remote_ece} (read the
     *     pointer only, to refuse an id with a QP), and the inline {@code rdma_post_*} of
     *     {@code rdma_verbs.h} ({@code ibv_post_send}/{@code ibv_post_recv} on {@code id->qp}); the
     *     project's own posts go through {@link QueuePair}, whose guards {@code rdma_destroy_qp} waits for.</li>
     * </ul>
     * {@code rdma_reject}, {@code rdma_notify}, {@code rdma_bind_addr}, {@code rdma_resolve_addr},
     * {@code rdma_resolve_route}, {@code rdma_listen} and {@code rdma_destroy_id} never touch {@code id->qp}.
     */
    private void callThroughQp(String verb, Runnable action) {
        call(verb, () -> runUnderIdLock(action));
    }

    private <T> T underIdLock(Supplier<T> action) {
        channel.lockIds();
        try {
            return action.get();
        } finally {
            channel.unlockIds();
        }
    }

    private void runUnderIdLock(Runnable action) {
        channel.lockIds();
        try {
            action.run();
        } finally {
            channel.unlockIds();
        }
    }

    /**
     * Takes {@code next} BEFORE calling the verb, since the event the verb causes may be read (and move
     * the role on) before the verb returns; back to the role before when the verb fails.
     */
    private void moveAcross(CmIdRole next, Runnable verb) {
        CmIdRole before = role;
        role = next;
        try {
            verb.run();
        } catch (RuntimeException e) {
            if (role == next) {
                role = before;
            }
            throw e;
        }
    }

    private void requireRole(String verb, CmIdRole expected, String rule) {
        if (role != expected) {
            throw refused(verb, rule);
        }
    }

    /** A call the role rules out, refused before the verb with the errno librdmacm would give. */
    private VerbsException refused(String verb, String rule) {
        return new VerbsException(verb, ref().toString(), Errno.EINVAL, ref() + " is " + role + ": " + rule
                + " (refused before calling " + verb + "; nothing changed)");
    }

    private void requirePrivateData(String verb, byte[] data, int max) {
        if (portSpace() == CmPortSpace.TCP && data.length > max) {
            throw new IllegalArgumentException(verb + " on an RDMA_PS_TCP id carries at most " + max
                    + " bytes of private data (" + verb + "(3)), got " + data.length);
        }
    }

    private static void requireResolvedAddress(InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException(address + " is unresolved: the CM takes IP addresses, not host names");
        }
    }

    private static void requirePositive(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a timeout must be positive, was " + timeout);
        }
    }
}
