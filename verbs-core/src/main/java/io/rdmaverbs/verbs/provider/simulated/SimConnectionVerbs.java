package io.rdmaverbs.verbs.provider.simulated;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CmChannelHandle;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.provider.CmEventHandle;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.provider.CmIdHandle;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.Handle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;

import org.jspecify.annotations.Nullable;

/**
 * The simulated connection manager of one host: librdmacm and the kernel's {@code rdma_ucm},
 * {@code rdma_cm} and IB CM over the {@link SimulatedNetwork} the host is on, with the event sequences,
 * statuses and private-data sizes that librdmacm shows on rxe. The IB CM handshake (REQ, REP, RTU, REJ,
 * DREQ, DREP) happens when the verb is called (the simulation has no wire delay); what times out is
 * due when its timeout ends.
 */
final class SimConnectionVerbs implements ConnectionVerbs {

    /** {@code IB_CM_REJ_INVALID_SERVICE_ID}: a REQ for a port no id listens on. */
    static final int REJECT_INVALID_SERVICE_ID = 8;
    /** {@code IB_CM_REJ_CONSUMER_DEFINED}: the peer called {@code rdma_reject}, or destroyed the request's id. */
    static final int REJECT_CONSUMER_DEFINED = 28;
    /** {@code RDMA_UDP_QKEY}, the Q_Key librdmacm gives UD QPs of RDMA_PS_UDP ids. */
    static final int UDP_QKEY = 0x0123_4567;
    /** {@code net.rdma_ucm.max_backlog}'s default. */
    private static final int MAX_BACKLOG = 1024;
    /** Private data the IB CM messages carry: what librdmacm reports as the event's length. */
    private static final int REQ_PRIVATE_DATA = CmConnectionParams.MAX_CONNECT_PRIVATE_DATA;
    private static final int REP_PRIVATE_DATA = CmConnectionParams.MAX_ACCEPT_PRIVATE_DATA;
    private static final int REJ_PRIVATE_DATA = CmConnectionParams.MAX_REJECT_PRIVATE_DATA;
    /**
     * How long the IB CM resends an unanswered REQ or DREQ before it gives up (UNREACHABLE, or the
     * DREQ's sender's DISCONNECTED): {@code 1 + CMA_MAX_CM_RETRIES} sends, each waiting twice the path's
     * packet lifetime plus {@code CMA_CM_RESPONSE_TIMEOUT}. Measured on rxe in the soft-RoCE guest:
     * about 100 s.
     */
    static final Duration DEFAULT_CM_RETRY_TIMEOUT = Duration.ofSeconds(100);
    /** How often a reader waiting while events are held looks again: nothing signals the end of a hold. */
    private static final long HELD_EVENTS_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private final SimUverbs uverbs;
    final SimulatedNetwork network;
    private final SimDeviceVerbs devices;
    private final SimQpVerbs qps;
    private final DescriptorTable descriptors;
    private final AtomicLong serials = new AtomicLong();
    /** librdmacm's own context per device, opened on first use and never closed. */
    private final Map<SimDevice, SimContext> contexts = new HashMap<>();
    private final CmPortTable ports = new CmPortTable();
    /** The devices whose netdev has {@code IFF_NOARP} ({@code ip link set dev X arp off}, as dummy0 has). */
    private final Set<SimDevice> noArp = new java.util.HashSet<>();
    /** The ids not yet destroyed, like the kernel's {@code rdma resource show cm_id}. */
    private final Set<SimCmId> live = new java.util.LinkedHashSet<>();
    private volatile long cmRetryNanos = DEFAULT_CM_RETRY_TIMEOUT.toNanos();
    private volatile long idQpGapNanos;
    /** Whether this host's readers see no event due ({@link SimulatedProvider#holdCmEvents}). */
    private volatile boolean eventsHeld;

    SimConnectionVerbs(SimUverbs uverbs, SimulatedNetwork network, SimDeviceVerbs devices, SimQpVerbs qps,
            DescriptorTable descriptors) {
        this.uverbs = uverbs;
        this.network = network;
        this.devices = devices;
        this.qps = qps;
        this.descriptors = descriptors;
    }

    // ---- channels and ids ---------------------------------------------------------------------------

    @Override
    public CmChannelHandle createEventChannel() {
        uverbs.call("rdma_create_event_channel", null, "event channel");
        return new SimCmChannel(uverbs.provider, serials.incrementAndGet(), descriptors.openChannel(),
                network.lock.newCondition());
    }

    /**
     * What the kernel does when the channel's descriptor is closed ({@code ucma_close}): it destroys the
     * ids still on it (a connected one sends its DREQ, so the peer sees DISCONNECTED; a request's sends a
     * REJ) and frees their events. librdmacm's void call never says so; the ids' handles become unusable.
     */
    @Override
    public void destroyEventChannel(CmChannelHandle channel) {
        SimCmChannel ch = own(channel, SimCmChannel.class);
        uverbs.call("rdma_destroy_event_channel", null, ch.describe());
        onNetwork(() -> {
            ch.requireUsable();
            for (SimCmId id : List.copyOf(ch.ids)) {
                if (id.isGone()) {
                    continue; // a request's id released with its listener just before
                }
                release(id, "was destroyed by the kernel with its event channel " + ch.describe()
                        + " (rdma_destroy_event_channel closes the descriptor; the kernel destroys the ids on it)");
            }
            ch.queued.clear();
            for (SimCmEvent held : ch.held) {
                held.markGone("was freed by the kernel with its event channel " + ch.describe());
            }
            ch.held.clear();
            descriptors.closeChannel(ch.fd());
            ch.markGone("was already destroyed");
            ch.eventArrived.signalAll();
        });
    }

    @Override
    public CmIdHandle createId(CmChannelHandle channel, CmPortSpace portSpace) {
        SimCmChannel ch = own(channel, SimCmChannel.class);
        Objects.requireNonNull(portSpace, "portSpace");
        uverbs.call("rdma_create_id", null, ch.describe());
        return onNetwork(() -> {
            ch.requireUsable();
            SimCmId id = new SimCmId(uverbs.provider, serials.incrementAndGet(), ch, portSpace);
            ch.ids.add(id);
            live.add(id);
            return id;
        });
    }

    /**
     * Refused (IllegalStateException) while an event of the id, or a CONNECT_REQUEST on a listening id,
     * was returned and not acknowledged: {@code rdma_destroy_id(3)} would block forever. A QP created on
     * the id stays alive, as with librdmacm (which does not destroy it): destroy it first.
     */
    @Override
    public void destroyId(CmIdHandle id) {
        SimCmId cmId = own(id, SimCmId.class);
        uverbs.call("rdma_destroy_id", cmId.device, cmId.describe());
        onNetwork(() -> {
            cmId.requireUsable();
            List<String> held = heldEvents(cmId);
            if (!held.isEmpty()) {
                throw new IllegalStateException("rdma_destroy_id(" + cmId.describe() + ") would block forever: "
                        + String.join(", ", held) + " returned by rdma_get_cm_event and not acknowledged"
                        + " (rdma_get_cm_event(3)); acknowledge it (ackEvent) first");
            }
            release(cmId, "was already destroyed");
        });
    }

    @Override
    public void bindAddr(CmIdHandle id, InetSocketAddress address) {
        SimCmId cmId = own(id, SimCmId.class);
        Objects.requireNonNull(address, "address");
        requireResolved(address);
        uverbs.call("rdma_bind_addr", null, cmId.describe());
        onNetwork(() -> {
            cmId.requireUsable();
            if (cmId.state != SimCmId.State.IDLE) {
                throw new VerbsException("rdma_bind_addr", cmId.describe(), Errno.EINVAL, "the id is already bound");
            }
            bind("rdma_bind_addr", cmId, address);
        });
    }

    // ---- resolution -----------------------------------------------------------------------------------

    /**
     * Binds the id (to {@code source}, to the destination's device when it is on this host, else to this
     * host's first device) and queues ADDR_RESOLVED. For an address no device of the network has, what
     * the kernel's address resolution ({@code rdma_resolve_addr(3)}) does depends on the netdev: with
     * neighbour discovery, it gets no answer and ADDR_ERROR with {@code -ETIMEDOUT} is due when the
     * timeout ends; on an {@code IFF_NOARP} netdev (dummy0) the neighbour is valid at once, so the
     * address resolves, and only the connect's REQ goes unanswered ({@link #connect}).
     */
    @Override
    public void resolveAddr(CmIdHandle id, @Nullable InetSocketAddress source, InetSocketAddress destination,
            Duration timeout) {
        SimCmId cmId = own(id, SimCmId.class);
        Objects.requireNonNull(destination, "destination");
        requireResolved(destination);
        if (source != null) {
            requireResolved(source);
        }
        long timeoutNanos = requirePositive(timeout);
        uverbs.call("rdma_resolve_addr", cmId.device, cmId.describe());
        onNetwork(() -> {
            cmId.requireUsable();
            if (cmId.state != SimCmId.State.IDLE && cmId.state != SimCmId.State.BOUND) {
                throw new VerbsException("rdma_resolve_addr", cmId.describe(), Errno.EINVAL, "the id is "
                        + cmId.state + "; resolve an address on a new or bound id");
            }
            SimulatedNetwork.Interface target = network.find(destination.getAddress());
            if (cmId.state == SimCmId.State.IDLE) {
                if (source != null) {
                    bind("rdma_resolve_addr", cmId, source);
                } else {
                    SimDevice via = target != null && target.host() == this ? target.device() : devices.all().getFirst();
                    bind("rdma_resolve_addr", cmId, new InetSocketAddress(network.addresses(via).getFirst(), 0));
                }
            }
            SimDevice egress = cmId.device != null ? cmId.device
                    : target != null && target.host() == this ? target.device() : devices.all().getFirst();
            if (target == null && !noArp.contains(egress)) {
                cmId.channel.enqueue(new SimCmEvent(CmEventType.ADDR_ERROR, cmId, null, -Errno.ETIMEDOUT.number(),
                        new byte[0], System.nanoTime() + timeoutNanos));
                return;
            }
            if (cmId.device == null) {
                // Bound to the wildcard address: the route picks the device.
                attach(cmId, egress);
            }
            cmId.peer = destination;
            cmId.state = SimCmId.State.ADDR_RESOLVED;
            cmId.channel.enqueue(event(CmEventType.ADDR_RESOLVED, cmId, null, 0, new byte[0]));
        });
    }

    @Override
    public void resolveRoute(CmIdHandle id, Duration timeout) {
        SimCmId cmId = own(id, SimCmId.class);
        requirePositive(timeout);
        uverbs.call("rdma_resolve_route", cmId.device, cmId.describe());
        onNetwork(() -> {
            cmId.requireUsable();
            if (cmId.state != SimCmId.State.ADDR_RESOLVED) {
                throw new VerbsException("rdma_resolve_route", cmId.describe(), Errno.EINVAL, "the id is "
                        + cmId.state + "; resolve its address first (ADDR_RESOLVED)");
            }
            cmId.state = SimCmId.State.ROUTE_RESOLVED;
            cmId.channel.enqueue(event(CmEventType.ROUTE_RESOLVED, cmId, null, 0, new byte[0]));
        });
    }

    // ---- the handshake --------------------------------------------------------------------------------

    @Override
    public void listen(CmIdHandle id, int backlog) {
        SimCmId cmId = own(id, SimCmId.class);
        uverbs.call("rdma_listen", cmId.device, cmId.describe());
        onNetwork(() -> {
            cmId.requireUsable();
            if (cmId.state != SimCmId.State.BOUND) {
                throw new VerbsException("rdma_listen", cmId.describe(), Errno.EINVAL, "the id is " + cmId.state
                        + "; bind it (rdma_bind_addr) first");
            }
            // rdma_ucm: a backlog outside 1..max_backlog (net.rdma_ucm.max_backlog, 1024) is max_backlog.
            cmId.backlog = backlog <= 0 || backlog > MAX_BACKLOG ? MAX_BACKLOG : backlog;
            cmId.state = SimCmId.State.LISTEN;
        });
    }

    /**
     * Sends the REQ: the listener on the peer's port gets CONNECT_REQUEST with a new id (or, when the
     * listener's backlog of requests not yet returned by getEvent is full, this id gets REJECTED with
     * status 28); with no listener
     * there this id gets REJECTED with status 8 ({@code IB_CM_REJ_INVALID_SERVICE_ID}), as on rxe; when
     * nobody has the address (an {@code IFF_NOARP} netdev resolved it) or the peer's port is not ACTIVE,
     * the REQ goes unanswered and this id gets UNREACHABLE with {@code -ETIMEDOUT} once the IB CM's
     * retries are spent ({@link SimulatedProvider#setCmRetryTimeout}), whatever the route's timeout.
     */
    @Override
    public void connect(CmIdHandle id, CmConnectionParams params) {
        SimCmId cmId = own(id, SimCmId.class);
        Objects.requireNonNull(params, "params");
        uverbs.call("rdma_connect", cmId.device, cmId.describe());
        SimQp qp = loadIdQp(cmId);
        onNetwork(() -> {
            cmId.requireUsable();
            if (qp != null) {
                useLoadedQp(qp, "rdma_connect", "a read of its qp_num and srq");
            }
            if (cmId.state != SimCmId.State.ROUTE_RESOLVED) {
                throw new VerbsException("rdma_connect", cmId.describe(), Errno.EINVAL, "the id is " + cmId.state
                        + "; resolve its route first (ROUTE_RESOLVED)");
            }
            requirePortSpaceTcp("rdma_connect", cmId);
            requirePrivateData("rdma_connect", cmId, params.privateData(), REQ_PRIVATE_DATA);
            requireDeviceLimits("rdma_connect", cmId, params);
            InetSocketAddress peer = Objects.requireNonNull(cmId.peer);
            SimulatedNetwork.Interface target = network.find(peer.getAddress());
            if (target == null || !SimUverbs.locked(target.device(), () -> target.device().portActive(1))) {
                // The REQ gets no answer: the IB CM retries until the route's timeout, then gives up.
                cmId.state = SimCmId.State.UNREACHABLE;
                cmId.channel.enqueue(new SimCmEvent(CmEventType.UNREACHABLE, cmId, null, -Errno.ETIMEDOUT.number(),
                        new byte[0], System.nanoTime() + cmRetryNanos));
                return;
            }
            SimConnectionVerbs remote = target.host();
            SimCmId listener = remote.ports.listenerFor(cmId.portSpace, peer);
            if (listener == null) {
                cmId.state = SimCmId.State.REJECTED;
                cmId.channel.enqueue(event(CmEventType.REJECTED, cmId, null, REJECT_INVALID_SERVICE_ID, new byte[0]));
                return;
            }
            if (pendingRequests(listener) >= listener.backlog) {
                // ucma's backlog is used up: the CM destroys the new id, and its REJ reaches the requester.
                cmId.state = SimCmId.State.REJECTED;
                cmId.channel.enqueue(event(CmEventType.REJECTED, cmId, null, REJECT_CONSUMER_DEFINED,
                        new byte[REJ_PRIVATE_DATA]));
                return;
            }
            SimCmId request = remote.requestFor(listener, target.device(), peer, cmId);
            cmId.peerId = request;
            cmId.state = SimCmId.State.CONNECTING;
            listener.channel.enqueue(event(CmEventType.CONNECT_REQUEST, request, listener, 0,
                    padded(params.privateData(), REQ_PRIVATE_DATA)));
        });
    }

    /**
     * Sends the REP: this id's QP (where both ids have one) goes through RTR to RTS towards the requester's,
     * as librdmacm's {@code rdma_accept} moves it before the REP ({@code ibv_modify_qp}, counted by the fault
     * plan), and the id waits for the RTU ({@code ACCEPTED}). The requester's channel gets the REP, with this
     * private data: its QP moves, its RTU and both ESTABLISHEDs happen only as its {@code rdma_get_cm_event}
     * reads it ({@link #readReply}), as librdmacm does.
     */
    @Override
    public void accept(CmIdHandle id, CmConnectionParams params) {
        SimCmId cmId = own(id, SimCmId.class);
        Objects.requireNonNull(params, "params");
        uverbs.call("rdma_accept", cmId.device, cmId.describe());
        SimQp qp = loadIdQp(cmId);
        onNetwork(() -> {
            cmId.requireUsable();
            SimCmId active = requireRequest("rdma_accept", cmId);
            requirePrivateData("rdma_accept", cmId, params.privateData(), REP_PRIVATE_DATA);
            requireDeviceLimits("rdma_accept", cmId, params);
            if (qp != null) {
                useLoadedQp(qp, "rdma_accept", "ibv_modify_qp(IBV_QPS_RTR) and its qp_num");
            }
            SimQp passiveQp = cmId.qp;
            SimQp activeQp = active.qp;
            if (passiveQp != null && activeQp != null) {
                // Each side's responder resources, as the IB CM keeps them: the REP's for the passive side, the
                // REP's initiator depth for the active one (at its read of the REP).
                moveToRts(cmId, activeQp.qpNum(), Objects.requireNonNull(active.device),
                        params.responderResources() > 0);
            }
            cmId.state = SimCmId.State.ACCEPTED;
            SimCmEvent.Reply reply = new SimCmEvent.Reply(cmId, passiveQp == null ? -1 : passiveQp.qpNum(),
                    cmId.device, params.initiatorDepth() > 0);
            active.channel.enqueue(new SimCmEvent(CmEventType.ESTABLISHED, active, null, 0,
                    padded(params.privateData(), REP_PRIVATE_DATA), System.nanoTime(), reply));
        });
    }

    /**
     * librdmacm's {@code ucma_process_conn_resp}, as {@code rdma_get_cm_event} reads a REP for an id with a QP:
     * the QP to RTR and RTS towards the answering one, then the RTU (its {@code rdma_accept} on the active id);
     * the event reads as ESTABLISHED, and only now does the answering id's IB CM become established and its
     * id get ESTABLISHED. When the moves fail (the QP went to ERR with a disconnect meanwhile, or a fault), the
     * QP goes to ERR and the event reads as CONNECT_ERROR with status -1 (librdmacm's {@code ERR()}); the
     * answering id, its REP never answered, gets UNREACHABLE once the IB CM's REP retries end. When the
     * answering id rejected or left meanwhile, its REJ came after this REP: the RTU's write fails the same way.
     * Under the network's lock.
     */
    private SimCmEvent readReply(SimCmEvent rep, SimCmEvent.Reply reply) {
        SimCmId active = rep.id;
        SimCmId passive = reply.passive();
        boolean answered = active.state == SimCmId.State.CONNECTING && !passive.isGone()
                && passive.state == SimCmId.State.ACCEPTED;
        SimQp qp = active.qp;
        if (answered && qp != null && reply.qpNum() >= 0 && reply.device() != null) {
            try {
                moveToRts(active, reply.qpNum(), reply.device(), reply.initiator());
            } catch (VerbsException moveFailed) {
                answered = false;
                if (!passive.isGone() && passive.state == SimCmId.State.ACCEPTED) {
                    passive.state = SimCmId.State.UNREACHABLE;
                    passive.channel.enqueue(new SimCmEvent(CmEventType.UNREACHABLE, passive, null,
                            -Errno.ETIMEDOUT.number(), new byte[0], System.nanoTime() + cmRetryNanos));
                }
            }
        }
        if (!answered) {
            if (qp != null) {
                try {
                    qps.modifyQp(qp, QpModification.to(QpState.ERR));
                } catch (VerbsException e) {
                    // librdmacm's ucma_modify_qp_err ignores its result as well.
                }
            }
            if (active.state == SimCmId.State.CONNECTING) {
                active.state = SimCmId.State.REJECTED;
            }
            return new SimCmEvent(CmEventType.CONNECT_ERROR, active, null, -1, new byte[0], rep.dueNanos);
        }
        active.state = SimCmId.State.CONNECTED;
        passive.state = SimCmId.State.CONNECTED;
        passive.channel.enqueue(event(CmEventType.ESTABLISHED, passive, null, 0, new byte[0]));
        return rep;
    }

    @Override
    public void reject(CmIdHandle id, byte[] privateData) {
        SimCmId cmId = own(id, SimCmId.class);
        Objects.requireNonNull(privateData, "privateData");
        byte[] data = privateData.clone();
        uverbs.call("rdma_reject", cmId.device, cmId.describe());
        onNetwork(() -> {
            cmId.requireUsable();
            SimCmId active = requireRequest("rdma_reject", cmId);
            requirePrivateData("rdma_reject", cmId, data, REJ_PRIVATE_DATA);
            cmId.state = SimCmId.State.REJECTED;
            active.state = SimCmId.State.REJECTED;
            active.channel.enqueue(event(CmEventType.REJECTED, active, null, REJECT_CONSUMER_DEFINED,
                    padded(data, REJ_PRIVATE_DATA)));
        });
    }

    /**
     * {@code rdma_disconnect(3)} as the kernel's {@code rdma_disconnect} does it: EINVAL on an id that
     * never had an IB CM id (not connecting, connected or a request's); otherwise the QP moves to ERR
     * (its WRs flush) and the DREQ goes out from a connected id, or the DREP from one whose peer
     * disconnected first. Whatever the IB CM says to either (a second disconnect, a rejected request),
     * the call succeeds: the kernel ignores it.
     */
    @Override
    public void disconnect(CmIdHandle id) {
        SimCmId cmId = own(id, SimCmId.class);
        uverbs.call("rdma_disconnect", cmId.device, cmId.describe());
        SimQp qp = loadIdQp(cmId);
        onNetwork(() -> {
            cmId.requireUsable();
            if (!hasIbCmId(cmId)) {
                throw new VerbsException("rdma_disconnect", cmId.describe(), Errno.EINVAL, "the id is "
                        + cmId.state + "; only an id that connects, is connected or came with a request disconnects");
            }
            if (qp != null) {
                qps.modifyQp(useLoadedQp(qp, "rdma_disconnect", "ibv_modify_qp(IBV_QPS_ERR)"),
                        QpModification.to(QpState.ERR));
            }
            if (cmId.state == SimCmId.State.CONNECTED) {
                sendDisconnectRequest(cmId);
            } else if (cmId.state == SimCmId.State.DISCONNECTED && !cmId.disconnectSent) {
                sendDisconnectReply(cmId);
            }
            if (cmId.state != SimCmId.State.ACCEPTED) {
                cmId.disconnectSent = true;
            }
            // ACCEPTED: not established, the IB CM has neither a DREQ nor a DREP to send (the kernel's call
            // succeeds all the same); once the RTU comes, the id is CONNECTED and a disconnect sends the DREQ.
        });
    }

    /** Whether the kernel made an IB CM id for it ({@code id_priv->cm_id.ib}): by a connect, or a REQ. */
    private static boolean hasIbCmId(SimCmId cmId) {
        return switch (cmId.state) {
            case IDLE, BOUND, ADDR_RESOLVED, ROUTE_RESOLVED, LISTEN -> false;
            case CONNECTING, REQUEST, ACCEPTED, CONNECTED, DISCONNECTED, REJECTED, UNREACHABLE -> true;
        };
    }

    // ---- QPs on ids -----------------------------------------------------------------------------------

    /**
     * {@code rdma_create_qp}: checks, as librdmacm does, that the PD is of the id's context and the QP
     * type fits the port space, creates the QP ({@code ibv_create_qp_ex}) and moves it to INIT (a UD QP
     * on to RTS, with {@code RDMA_UDP_QKEY}); when a move fails, the QP is destroyed again.
     */
    @Override
    public QpHandle createQp(CmIdHandle id, QpInitSpec spec) {
        SimCmId cmId = own(id, SimCmId.class);
        Objects.requireNonNull(spec, "spec");
        QpType expected = cmId.portSpace == CmPortSpace.TCP ? QpType.RC : QpType.UD;
        if (spec.type() != expected) {
            throw new IllegalArgumentException("an " + cmId.portSpace + " id takes " + expected + " QPs, not "
                    + spec.type());
        }
        if (spec.pd() == null) {
            throw new IllegalArgumentException("rdma_create_qp needs a PD");
        }
        SimPd pd = uverbs.own(spec.pd(), SimPd.class);
        uverbs.call("rdma_create_qp", cmId.device, cmId.describe());
        return onNetwork(() -> {
            cmId.requireUsable();
            SimContext ctx = cmId.context;
            if (ctx == null) {
                throw new VerbsException("rdma_create_qp", cmId.describe(), Errno.EINVAL, "the id has no device"
                        + " yet; bind it or resolve its address first");
            }
            if (cmId.qp != null) {
                throw new VerbsException("rdma_create_qp", cmId.describe(), Errno.EINVAL, "the id already has "
                        + cmId.qp.describe());
            }
            if (pd.context() != ctx) {
                throw new VerbsException("rdma_create_qp", cmId.describe(), Errno.EINVAL, pd.describe()
                        + " belongs to " + pd.context().describe() + ", not to the id's context " + ctx.describe()
                        + " (id->verbs): allocate the PD and CQs in ConnectionVerbs.context(id)");
            }
            SimQp qp = (SimQp) qps.createQp(ctx, spec);
            try {
                if (expected == QpType.RC) {
                    qps.modifyQp(qp, QpModification.init(1, 0, EnumSet.of(AccessFlag.REMOTE_WRITE,
                            AccessFlag.REMOTE_READ)));
                } else {
                    qps.modifyQp(qp, QpModification.initDatagram(1, 0, UDP_QKEY));
                    qps.modifyQp(qp, QpModification.to(QpState.RTR));
                    qps.modifyQp(qp, QpModification.readyToSend(QpType.UD, 0));
                }
            } catch (RuntimeException e) {
                // librdmacm's rdma_create_qp_ex destroys the QP it could not bring up, and fails.
                qps.destroyQp(qp);
                throw e;
            }
            cmId.qp = qp;
            return qp;
        });
    }

    /** {@code rdma_destroy_qp}; void in librdmacm, but the errno of its {@code ibv_destroy_qp} is thrown here. */
    @Override
    public void destroyQp(CmIdHandle id) {
        SimCmId cmId = own(id, SimCmId.class);
        onNetwork(() -> {
            cmId.requireUsable();
            SimQp qp = cmId.qp;
            if (qp == null) {
                throw new IllegalStateException(cmId.describe() + " has no QP (rdma_create_qp)");
            }
            qps.destroyQp(qp);
            cmId.qp = null;
        });
    }

    // ---- events ---------------------------------------------------------------------------------------

    /** Negative {@code timeoutMillis} waits without limit, like {@code poll(2)}. */
    @Override
    public @Nullable CmEventHandle getEvent(CmChannelHandle channel, long timeoutMillis) {
        SimCmChannel ch = own(channel, SimCmChannel.class);
        uverbs.call("rdma_get_cm_event", null, ch.describe());
        network.lock.lock();
        try {
            // A zero timeout reads what is due now and leaves a pending wake, as the native read alone does.
            SimCmEvent head = timeoutMillis == 0 ? dueHead(ch) : awaitDue(ch, timeoutMillis);
            if (head == null) {
                return null;
            }
            ch.queued.removeFirst();
            if (head.reply != null) {
                head = readReply(head, head.reply);
            }
            head.returned = true;
            ch.held.add(head);
            return head;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException("rdma_get_cm_event", ch.describe(), Errno.EINTR,
                    "interrupted while waiting for a CM event");
        } finally {
            network.lock.unlock();
        }
    }

    /** Not counted by the fault plan: it is the {@code poll(2)} before {@code rdma_get_cm_event}, not a verb. */
    @Override
    public boolean awaitEventReady(CmChannelHandle channel, long timeoutMillis) {
        SimCmChannel ch = own(channel, SimCmChannel.class);
        network.lock.lock();
        try {
            return awaitDue(ch, timeoutMillis) != null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            network.lock.unlock();
        }
    }

    /**
     * Waits, under the network's lock, until the channel's first event is due, and returns it (still
     * queued); null on timeout or wake, which this consumes. An event wins over a wake that came with it.
     */
    private @Nullable SimCmEvent awaitDue(SimCmChannel ch, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(timeoutMillis, 0));
        while (true) {
            SimCmEvent head = dueHead(ch);
            if (head != null) {
                return head;
            }
            if (ch.wakePending) {
                ch.wakePending = false;
                return null;
            }
            long now = System.nanoTime();
            long wait = timeoutMillis < 0 ? Long.MAX_VALUE : deadline - now;
            if (wait <= 0) {
                return null;
            }
            if (eventsHeld) {
                wait = Math.min(wait, HELD_EVENTS_RECHECK_NANOS);
            } else if (!ch.queued.isEmpty()) {
                wait = Math.min(wait, ch.queued.getFirst().dueNanos - now);
            }
            ch.eventArrived.awaitNanos(wait);
        }
    }

    /**
     * The channel's first event if it is due and this host's events are not held, under the network's lock;
     * refuses a destroyed channel.
     */
    private @Nullable SimCmEvent dueHead(SimCmChannel ch) {
        ch.requireUsable();
        SimCmEvent head = ch.queued.isEmpty() || eventsHeld ? null : ch.queued.getFirst();
        return head != null && head.dueNanos - System.nanoTime() <= 0 ? head : null;
    }

    /** Not counted by the fault plan: like {@code ibv_ack_cq_events}, it cannot fail in librdmacm. */
    @Override
    public void ackEvent(CmEventHandle event) {
        SimCmEvent ev = identify(event, SimCmEvent.class);
        onNetwork(() -> {
            if (ev.isGone()) {
                throw new IllegalStateException(ev.describe() + " was already acknowledged");
            }
            ev.markGone("was already acknowledged");
            ev.id.channel.held.remove(ev);
        });
    }

    @Override
    public void wakeEventWaiters(CmChannelHandle channel) {
        SimCmChannel ch = identify(channel, SimCmChannel.class);
        onNetwork(() -> {
            if (!ch.isGone()) {
                ch.wakePending = true;
                ch.eventArrived.signalAll();
            }
        });
    }

    // ---- queries ------------------------------------------------------------------------------------

    @Override
    public @Nullable ContextHandle context(CmIdHandle id) {
        SimCmId cmId = own(id, SimCmId.class);
        return onNetwork(() -> cmId.context);
    }

    @Override
    public @Nullable QpHandle qp(CmIdHandle id) {
        SimCmId cmId = own(id, SimCmId.class);
        return onNetwork(() -> cmId.qp);
    }

    @Override
    public @Nullable InetSocketAddress localAddress(CmIdHandle id) {
        SimCmId cmId = own(id, SimCmId.class);
        return onNetwork(() -> cmId.local);
    }

    @Override
    public @Nullable InetSocketAddress peerAddress(CmIdHandle id) {
        SimCmId cmId = own(id, SimCmId.class);
        return onNetwork(() -> cmId.peer);
    }

    /** The device's addresses on its network: its GID 0's link-local address first, then those added. */
    @Override
    public List<InetAddress> addresses(String deviceName) {
        return network.addresses(devices.device(deviceName));
    }

    void addAddress(String deviceName, InetAddress address) {
        network.assign(this, devices.device(deviceName), address);
    }

    void setArp(String deviceName, boolean enabled) {
        SimDevice device = devices.device(deviceName);
        onNetwork(() -> {
            if (enabled) {
                noArp.remove(device);
            } else {
                noArp.add(device);
            }
        });
    }

    void holdEvents(boolean held) {
        eventsHeld = held;
    }

    void setCmRetryTimeout(Duration timeout) {
        cmRetryNanos = requirePositive(timeout);
    }

    void widenIdQpGap(Duration gap) {
        Objects.requireNonNull(gap, "gap");
        if (gap.isNegative()) {
            throw new IllegalArgumentException("a gap must not be negative, was " + gap);
        }
        idQpGapNanos = gap.toNanos();
    }

    /**
     * librdmacm's load of {@code id->qp} at the start of a verb that then uses the QP: in user space, with no
     * lock against {@code rdma_destroy_qp} (which frees the QP, then clears {@code id->qp}), followed by the
     * gap {@link SimulatedProvider#widenLibrdmacmRaces} sets before the verb goes on.
     */
    private @Nullable SimQp loadIdQp(SimCmId cmId) {
        SimQp qp = onNetwork(() -> cmId.qp);
        long gap = idQpGapNanos;
        if (qp != null && gap > 0) {
            LockSupport.parkNanos(gap);
        }
        return qp;
    }

    /** The use of a QP {@link #loadIdQp loaded} from {@code id->qp}: freed since, it is a crash in C. */
    private SimQp useLoadedQp(SimQp qp, String verb, String use) {
        if (qp.isDestroyed()) {
            throw qp.provider.freedMemoryUse(new FreedMemoryUse(verb, use, qp.describe(),
                    Thread.currentThread().toString()));
        }
        return qp;
    }

    int liveIds() {
        return onNetwork(live::size);
    }

    // ---- the kernel's side ----------------------------------------------------------------------------

    /** Binds to an address of this host (or the wildcard) and a port; port 0 picks a free one. */
    private void bind(String verb, SimCmId cmId, InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        SimDevice device = null;
        if (!ip.isAnyLocalAddress()) {
            SimulatedNetwork.Interface itf = network.find(ip);
            if (itf == null || itf.host() != this) {
                throw new VerbsException(verb, cmId.describe(), Errno.EADDRNOTAVAIL, ip.getHostAddress()
                        + " is not an address of a device of this host; it has " + hostAddresses());
            }
            device = itf.device();
        }
        cmId.local = ports.bind(verb, cmId, address);
        cmId.state = SimCmId.State.BOUND;
        if (device != null) {
            attach(cmId, device);
        }
    }

    private void attach(SimCmId cmId, SimDevice device) {
        cmId.device = device;
        cmId.context = contexts.computeIfAbsent(device, d -> {
            SimContext ctx = (SimContext) devices.openDevice(d.profile.info());
            ctx.ownedByConnectionManager = true;
            return ctx;
        });
    }

    /** The new id a REQ makes on the listener's channel, owned by the application once it is returned. */
    private SimCmId requestFor(SimCmId listener, SimDevice device, InetSocketAddress local, SimCmId active) {
        SimCmId request = new SimCmId(uverbs.provider, serials.incrementAndGet(), listener.channel, listener.portSpace);
        attach(request, device);
        request.local = local;
        request.peer = active.local;
        request.peerId = active;
        request.state = SimCmId.State.REQUEST;
        listener.channel.ids.add(request);
        live.add(request);
        return request;
    }

    private SimCmId requireRequest(String verb, SimCmId cmId) {
        SimCmId active = cmId.peerId;
        if (cmId.state != SimCmId.State.REQUEST || active == null) {
            throw new VerbsException(verb, cmId.describe(), Errno.EINVAL, "the id is " + cmId.state
                    + "; only the id of a CONNECT_REQUEST is accepted or rejected");
        }
        if (active.isGone() || active.state != SimCmId.State.CONNECTING) {
            throw new VerbsException(verb, cmId.describe(), Errno.EINVAL, "the requesting id " + active.describe()
                    + " no longer waits for an answer");
        }
        return active;
    }

    /**
     * INIT (if librdmacm has not done it yet) to RTR to RTS towards the peer's QP, as the CM's QP attributes say:
     * remote write always, remote read and atomics only when the side has responder resources (the kernel's
     * {@code cm_init_qp_init_attr}).
     */
    void moveToRts(SimCmId cmId, int remoteQpNum, SimDevice remoteDevice, boolean respondsToReads) {
        SimQp qp = Objects.requireNonNull(cmId.qp);
        DeviceProfile.Port port = remoteDevice.profile.port(1);
        AddressVector path = port.linkLayer() == LinkLayer.ETHERNET ? AddressVector.roce(1, port.gid(0), 0)
                : AddressVector.infiniband(1, port.lid());
        Objects.requireNonNull(cmId.device);
        EnumSet<AccessFlag> access = respondsToReads
                ? EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC)
                : EnumSet.of(AccessFlag.REMOTE_WRITE);
        qps.modifyQp(qp, QpModification.readyToReceive(QpType.RC, path, remoteQpNum, 0,
                cmId.device.profile.port(1).activeMtu()).accessFlags(access));
        qps.modifyQp(qp, QpModification.readyToSend(QpType.RC, 0));
    }

    /**
     * The DREQ of a connected id: the peer's id gets DISCONNECTED at once; this id's own DISCONNECTED
     * waits for the peer's DREP (its {@code rdma_disconnect}, or the destroy of its id) and comes when
     * the IB CM gives up resending the DREQ otherwise.
     */
    private void sendDisconnectRequest(SimCmId cmId) {
        cmId.state = SimCmId.State.DISCONNECTED;
        cmId.disconnectSent = true;
        SimCmId peer = cmId.peerId;
        if (peer != null && !peer.isGone() && peer.state == SimCmId.State.CONNECTED) {
            peer.state = SimCmId.State.DISCONNECTED;
            peer.channel.enqueue(event(CmEventType.DISCONNECTED, peer, null, 0, new byte[0]));
            SimCmEvent unanswered = new SimCmEvent(CmEventType.DISCONNECTED, cmId, null, 0, new byte[0],
                    System.nanoTime() + cmRetryNanos);
            cmId.awaitingReply = unanswered;
            cmId.channel.enqueue(unanswered);
        } else {
            // The peer is gone: nothing answers, and nothing is resent to it.
            cmId.channel.enqueue(event(CmEventType.DISCONNECTED, cmId, null, 0, new byte[0]));
        }
    }

    /** The DREP of an id whose peer disconnected first: the peer's DISCONNECTED is due now. */
    private void sendDisconnectReply(SimCmId cmId) {
        SimCmId peer = cmId.peerId;
        if (peer == null || peer.isGone()) {
            return;
        }
        SimCmEvent unanswered = peer.awaitingReply;
        if (unanswered != null && peer.channel.queued.remove(unanswered)) {
            peer.channel.enqueue(event(CmEventType.DISCONNECTED, peer, null, 0, new byte[0]));
        }
        peer.awaitingReply = null;
    }

    /**
     * The kernel's part of destroying an id: a connected id sends its DREQ (the peer gets DISCONNECTED),
     * an unanswered request's id its REJ (the requester gets REJECTED); queued events are dropped, a
     * CONNECT_REQUEST with its new id; the port is freed.
     */
    private void release(SimCmId cmId, String why) {
        if (cmId.state == SimCmId.State.CONNECTED) {
            sendDisconnectRequest(cmId);
        } else if (cmId.state == SimCmId.State.DISCONNECTED && !cmId.disconnectSent) {
            sendDisconnectReply(cmId); // the IB CM answers a DREQ for an id being destroyed
        } else if ((cmId.state == SimCmId.State.REQUEST || cmId.state == SimCmId.State.ACCEPTED)
                && cmId.peerId != null && cmId.peerId.state == SimCmId.State.CONNECTING && !cmId.peerId.isGone()) {
            // Unanswered, or answered with a REP not yet read: the REJ comes after it (the REP, read, then
            // fails its RTU: CONNECT_ERROR before this REJECTED).
            SimCmId active = cmId.peerId;
            active.state = SimCmId.State.REJECTED;
            active.channel.enqueue(event(CmEventType.REJECTED, active, null, REJECT_CONSUMER_DEFINED,
                    new byte[REJ_PRIVATE_DATA]));
        } else if (cmId.state == SimCmId.State.CONNECTING && cmId.peerId != null && !cmId.peerId.isGone()
                && cmId.peerId.state == SimCmId.State.ACCEPTED) {
            // The requester leaves with the REP unread: its IB CM rejects the REP.
            SimCmId passive = cmId.peerId;
            passive.state = SimCmId.State.REJECTED;
            passive.channel.enqueue(event(CmEventType.REJECTED, passive, null, REJECT_CONSUMER_DEFINED,
                    new byte[REJ_PRIVATE_DATA]));
        }
        for (SimCmEvent queued : List.copyOf(cmId.channel.queued)) {
            if (queued.id == cmId || queued.listenId == cmId) {
                cmId.channel.queued.remove(queued);
                if (queued.type() == CmEventType.CONNECT_REQUEST && queued.id != cmId) {
                    release(queued.id, "was destroyed by the kernel with its listening id before it was returned");
                }
            }
        }
        ports.release(cmId);
        cmId.channel.ids.remove(cmId);
        live.remove(cmId);
        cmId.markGone(why);
    }

    /** CONNECT_REQUESTs of the listener queued and not yet returned: what ucma's backlog counts. */
    private static long pendingRequests(SimCmId listener) {
        return listener.channel.queued.stream().filter(e -> e.type() == CmEventType.CONNECT_REQUEST
                && e.listenId == listener).count();
    }

    private List<String> heldEvents(SimCmId cmId) {
        List<String> held = new ArrayList<>();
        // A CONNECT_REQUEST is on the listener's channel, which is also its new id's.
        for (SimCmEvent event : cmId.channel.held) {
            if (event.heldFor(cmId)) {
                held.add(event.describe());
            }
        }
        return held;
    }

    private SimCmEvent event(CmEventType type, SimCmId id, @Nullable SimCmId listenId, int status, byte[] data) {
        return new SimCmEvent(type, id, listenId, status, data, System.nanoTime());
    }

    private String hostAddresses() {
        List<String> all = new ArrayList<>();
        for (SimDevice d : devices.all()) {
            for (InetAddress a : network.addresses(d)) {
                all.add(a.getHostAddress() + " (" + d.name() + ")");
            }
        }
        return all.toString();
    }

    // ---- checks -----------------------------------------------------------------------------------------

    private <T extends SimCmObject> T identify(Handle handle, Class<T> type) {
        Objects.requireNonNull(handle, "handle");
        if (!(handle instanceof SimCmObject sim) || sim.provider != uverbs.provider) {
            throw new IllegalArgumentException(handle.describe() + " was not created by this simulated provider");
        }
        if (!type.isInstance(handle)) {
            throw new IllegalArgumentException(handle.describe() + " is not a " + type.getSimpleName());
        }
        return type.cast(handle);
    }

    private <T extends SimCmObject> T own(Handle handle, Class<T> type) {
        T sim = identify(handle, type);
        sim.requireUsable();
        return sim;
    }

    private static void requireResolved(InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException(address + " is unresolved; the CM takes IP addresses, not host names");
        }
    }

    private static long requirePositive(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        return timeout.toNanos();
    }

    private static void requirePortSpaceTcp(String verb, SimCmId cmId) {
        if (cmId.portSpace != CmPortSpace.TCP) {
            throw new VerbsException(verb, cmId.describe(), Errno.EOPNOTSUPP, "the simulated CM does not model"
                    + " the SIDR exchange of RDMA_PS_UDP ids yet");
        }
    }

    /** The kernel refuses more private data than the IB CM message carries ({@code ib_send_cm_*}: EINVAL). */
    private static void requirePrivateData(String verb, SimCmId cmId, byte[] data, int max) {
        if (data.length > max) {
            throw new VerbsException(verb, cmId.describe(), Errno.EINVAL, data.length + " bytes of private data;"
                    + " the IB CM message carries at most " + max + " (" + verb + "(3))");
        }
    }

    /**
     * librdmacm's {@code ucma_valid_param}: a {@code responder_resources} or {@code initiator_depth} above the
     * device's {@code max_qp_rd_atom} / {@code max_qp_init_rd_atom} is EINVAL (255 means "the device's
     * maximum" and passes).
     */
    private static void requireDeviceLimits(String verb, SimCmId cmId, CmConnectionParams params) {
        SimDevice device = cmId.device;
        if (device == null || cmId.portSpace != CmPortSpace.TCP) {
            return;
        }
        DeviceAttributes a = device.profile.attributes();
        if (params.responderResources() != 255 && params.responderResources() > a.maxQpRdAtom()) {
            throw new VerbsException(verb, cmId.describe(), Errno.EINVAL, "responder_resources "
                    + params.responderResources() + " is above " + device.profile.name() + "'s max_qp_rd_atom "
                    + a.maxQpRdAtom());
        }
        if (params.initiatorDepth() != 255 && params.initiatorDepth() > a.maxQpInitRdAtom()) {
            throw new VerbsException(verb, cmId.describe(), Errno.EINVAL, "initiator_depth "
                    + params.initiatorDepth() + " is above " + device.profile.name() + "'s max_qp_init_rd_atom "
                    + a.maxQpInitRdAtom());
        }
    }

    private static byte[] padded(byte[] data, int transportLength) {
        return java.util.Arrays.copyOf(data, transportLength);
    }

    private <T> T onNetwork(Supplier<T> action) {
        network.lock.lock();
        try {
            return action.get();
        } finally {
            network.lock.unlock();
        }
    }

    private void onNetwork(Runnable action) {
        network.lock.lock();
        try {
            action.run();
        } finally {
            network.lock.unlock();
        }
    }
}
