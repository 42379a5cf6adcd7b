package io.rdmaverbs.verbs;

import io.rdmaverbs.verbs.error.Errno;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpTransitions;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.QpExOps;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;

import org.jspecify.annotations.Nullable;

/**
 * A queue pair ({@code struct ibv_qp}, {@code ibv_create_qp_ex(3)}). {@code ibv_destroy_qp} fails with {@code EBUSY}
 * while the QP is attached to a multicast group; an XRC receive QP's destroy only unregisters this
 * process (the QP lives until its last registration goes).
 */
public final class QueuePair extends VerbsResource {

    final QpHandle handle;
    /* Kept rather than asked of the provider per call: posting is the data path. */
    private final QueuePairVerbs qpVerbs;
    private final DeviceContext context;
    private final @Nullable ProtectionDomain pd;
    private final @Nullable XrcDomain xrcd;
    private final @Nullable CompletionQueue sendCq;
    private final @Nullable CompletionQueue recvCq;
    private final @Nullable SharedReceiveQueue srq;
    /** The CM id the QP was created on ({@code rdma_create_qp(3)}); the CM moves its state. */
    private final @Nullable CmId cmId;
    /** The operations of the new post API the QP was created for; empty for {@code ibv_post_send} only. */
    private final Set<SendOpcode> sendOps;
    private final @Nullable QpExOps exOps;
    private volatile QpState state = QpState.RESET;

    QueuePair(DeviceContext context, @Nullable ProtectionDomain pd, @Nullable XrcDomain xrcd,
            @Nullable CompletionQueue sendCq, @Nullable CompletionQueue recvCq, @Nullable SharedReceiveQueue srq,
            QpHandle handle, @Nullable String name) {
        this(context, pd, xrcd, sendCq, recvCq, srq, null, handle, Set.of(), name);
    }

    /** A QP of {@code ibv_create_qp_ex(3)}, created for the new post API's {@code sendOps} (empty: none). */
    QueuePair(DeviceContext context, @Nullable ProtectionDomain pd, @Nullable XrcDomain xrcd,
            @Nullable CompletionQueue sendCq, @Nullable CompletionQueue recvCq, @Nullable SharedReceiveQueue srq,
            QpHandle handle, Set<SendOpcode> sendOps, @Nullable String name) {
        this(context, pd, xrcd, sendCq, recvCq, srq, null, handle, sendOps, name);
    }

    /** A QP of {@code rdma_create_qp(3)} on {@code cmId}: a dependent of the id too, released through it. */
    QueuePair(DeviceContext context, ProtectionDomain pd, CompletionQueue sendCq, @Nullable CompletionQueue recvCq,
            @Nullable SharedReceiveQueue srq, CmId cmId, QpHandle handle, @Nullable String name) {
        this(context, pd, null, sendCq, recvCq, srq, cmId, handle, Set.of(), name);
    }

    private QueuePair(DeviceContext context, @Nullable ProtectionDomain pd, @Nullable XrcDomain xrcd,
            @Nullable CompletionQueue sendCq, @Nullable CompletionQueue recvCq, @Nullable SharedReceiveQueue srq,
            @Nullable CmId cmId, QpHandle handle, Set<SendOpcode> sendOps, @Nullable String name) {
        super(context.verbs, ResourceKind.QUEUE_PAIR, parents(context, pd, xrcd, sendCq, recvCq, srq, cmId), name);
        this.cmId = cmId;
        this.handle = handle;
        this.qpVerbs = context.verbs.provider().queuePairVerbs();
        this.context = context;
        this.pd = pd;
        this.xrcd = xrcd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.sendOps = Set.copyOf(sendOps);
        this.exOps = sendOps.isEmpty() ? null : qpVerbs.qpExOps(handle);
    }

    private static List<VerbsResource> parents(DeviceContext context, @Nullable VerbsResource... others) {
        List<VerbsResource> p = new ArrayList<>();
        p.add(context);
        for (VerbsResource r : others) {
            if (r != null && !p.contains(r)) {
                p.add(r);
            }
        }
        return p;
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    public int qpNum() {
        return handle.qpNum();
    }

    public QpType type() {
        return handle.type();
    }

    /** The capabilities the provider granted. */
    public QpCapabilities capabilities() {
        return handle.capabilities();
    }

    /**
     * The state after the last successful {@link #modify}; {@link #query()} asks the device. A QP of a CM id
     * is moved by the CM itself, so for it this asks the device too (the last known state once closed).
     */
    public QpState state() {
        if (cmId != null && tryEnter()) {
            try {
                state = qpVerbs.queryQp(handle).state();
            } catch (RuntimeException e) {
                // The last state seen stands; query() reports the failure.
            } finally {
                exit();
            }
        }
        return state;
    }

    /** The CM id the QP was created on with {@code rdma_create_qp(3)}, or null for an {@code ibv_create_qp} one. */
    public @Nullable CmId cmId() {
        return cmId;
    }

    public @Nullable ProtectionDomain protectionDomain() {
        return pd;
    }

    public @Nullable XrcDomain xrcDomain() {
        return xrcd;
    }

    public @Nullable CompletionQueue sendCq() {
        return sendCq;
    }

    public @Nullable CompletionQueue recvCq() {
        return recvCq;
    }

    public @Nullable SharedReceiveQueue srq() {
        return srq;
    }

    // ---- state transitions ----------------------------------------------------------------------

    /**
     * {@code ibv_modify_qp(3)}. A modification the kernel's state-transition table ({@link QpTransitions})
     * rejects for this QP's type and state fails here with the kernel's {@code EINVAL}, naming the
     * transition and the missing or not-allowed attributes, and the provider is not called. One the
     * table takes goes to the device, whose answer stands (it also judges the values).
     */
    public void modify(QpModification modification) {
        Objects.requireNonNull(modification, "modification");
        if (modification.has(io.rdmaverbs.verbs.attr.QpAttributeMask.PORT)) {
            context.checkPort(modification.port());
        }
        AddressVector av = modification.addressVector();
        if (av != null) {
            context.checkPort(av.portNumber());
        }
        enter();
        try {
            if (cmId != null) {
                state = qpVerbs.queryQp(handle).state(); // the CM moved it
            }
            refuseWhatTheTableRejects(modification);
            qpVerbs.modifyQp(handle, modification);
            state = modification.state();
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } finally {
            exit();
        }
    }

    /*
     * The state checked against is the one the graph last saw. A device moves a QP on its own only to
     * ERR (or RTS to SQE), and every mask those states take is taken by the state the graph saw, so a
     * stale state never refuses what the kernel would do. Other processes may move an XRC receive QP
     * (ibv_open_qp(3)), so before refusing one the graph asks the device where it is.
     */
    private void refuseWhatTheTableRejects(QpModification modification) {
        QpTransitions.Rejection rejection = rejectionFrom(state, modification);
        if (rejection != null && type() == QpType.XRC_RECV) {
            state = qpVerbs.queryQp(handle).state();
            rejection = rejectionFrom(state, modification);
        }
        if (rejection != null) {
            throw new VerbsException("ibv_modify_qp", ref().toString(), Errno.EINVAL, rejection.explanation()
                    + " (the kernel's QP state table; refused before calling ibv_modify_qp, the QP is unchanged)");
        }
    }

    /** What the table says from {@code current}; nothing when the state is not known (the kernel judges). */
    private QpTransitions.@Nullable Rejection rejectionFrom(QpState current, QpModification modification) {
        return current == QpState.UNKNOWN ? null : QpTransitions.check(current, type(), modification).orElse(null);
    }

    /** RESET→INIT on {@code port}: UD QPs get {@link #DEFAULT_QKEY}, others {@code remoteAccess}. */
    public void toInit(int port, Set<AccessFlag> remoteAccess) {
        modify(type() == QpType.UD
                ? QpModification.initDatagram(port, 0, DEFAULT_QKEY)
                : QpModification.init(port, 0, remoteAccess));
    }

    /** The Q_Key {@link #toInit} gives UD QPs. */
    public static final int DEFAULT_QKEY = 0x11111111;

    /** INIT→RTR towards {@code remoteQpNum} at {@code path} (UD: no path needed, pass {@code null}). */
    public void toReadyToReceive(@Nullable AddressVector path, int remoteQpNum, int remotePsn, Mtu mtu) {
        if (type() == QpType.UD) {
            modify(QpModification.to(QpState.RTR));
            return;
        }
        modify(QpModification.readyToReceive(type(), Objects.requireNonNull(path, "path"), remoteQpNum, remotePsn,
                mtu));
    }

    /** RTR→RTS with send PSN {@code localPsn}. */
    public void toReadyToSend(int localPsn) {
        modify(QpModification.readyToSend(type(), localPsn));
    }

    /** {@code ibv_query_qp}. */
    public QpAttributes query() {
        enter();
        try {
            QpAttributes a = qpVerbs.queryQp(handle);
            state = a.state();
            return a;
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } finally {
            exit();
        }
    }

    // ---- work requests --------------------------------------------------------------------------

    /** A reusable send request with room for {@code maxSge} entries; one per posting thread. */
    public SendRequest newSendRequest(int maxSge) {
        checkSendSges(maxSge);
        return new SendRequest(qpVerbs.newSendWr(maxSge));
    }

    /** A reusable receive request with room for {@code maxSge} entries; one per posting thread. */
    public ReceiveRequest newReceiveRequest(int maxSge) {
        checkRecvSges(maxSge);
        return new ReceiveRequest(qpVerbs.newRecvWr(maxSge));
    }

    private void checkSendSges(int maxSge) {
        if (maxSge < 1 || maxSge > Math.max(1, capabilities().maxSendSge())) {
            throw new IllegalArgumentException(ref() + " sends with 1.." + capabilities().maxSendSge()
                    + " scatter/gather entries, asked for " + maxSge);
        }
    }

    private void checkRecvSges(int maxSge) {
        if (maxSge < 1 || maxSge > Math.max(1, capabilities().maxRecvSge())) {
            throw new IllegalArgumentException(ref() + " receives with 1.." + capabilities().maxRecvSge()
                    + " scatter/gather entries, asked for " + maxSge);
        }
    }

    /** {@code ibv_post_send}. Allocates nothing. */
    public void postSend(SendRequest request) {
        // Not entered, as CompletionQueue#poll: the provider guards the post itself (see QueuePairVerbs#destroyQp).
        checkOpen();
        request.checkPostable(this);
        try {
            qpVerbs.postSend(handle, request.wr());
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** {@code ibv_post_recv}. Allocates nothing. */
    public void postReceive(ReceiveRequest request) {
        if (srq != null) {
            throw new IllegalStateException(ref() + " receives through " + srq.ref() + ": post receives there");
        }
        checkOpen();
        request.checkPostable(context);
        try {
            qpVerbs.postRecv(handle, request.wr());
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /**
     * A reusable chain of up to {@code capacity} send requests, each with room for {@code maxSge}
     * entries, for {@link #postSend(SendBatch)}; one per posting thread.
     */
    public SendBatch newSendBatch(int capacity, int maxSge) {
        checkSendSges(maxSge);
        checkBatchCapacity(capacity);
        return new SendBatch(qpVerbs.newSendChain(capacity, maxSge));
    }

    /** A reusable chain of up to {@code capacity} receive requests, for {@link #postReceive(ReceiveBatch)}. */
    public ReceiveBatch newReceiveBatch(int capacity, int maxSge) {
        checkRecvSges(maxSge);
        checkBatchCapacity(capacity);
        return new ReceiveBatch(qpVerbs.newRecvChain(capacity, maxSge));
    }

    /*
     * Only at least one: a chain longer than the queue is allowed, as the provider posts what fits and
     * names the first WR that did not (ENOMEM), and providers round queues up beyond what they report.
     */
    private void checkBatchCapacity(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException(ref() + ": a batch holds at least one request, asked for " + capacity);
        }
    }

    /**
     * {@code ibv_post_send} of the batch's requests in one call, in order. Allocates nothing. Every request
     * is checked in Java first (a closed region refuses the whole batch before any is posted).
     *
     * @throws io.rdmaverbs.verbs.error.PostFailedException when the provider refused one of them
     *     ({@code bad_wr}): those before its {@code failedIndex()} were posted and will complete, it and
     *     the rest were not
     */
    public void postSend(SendBatch batch) {
        // Not entered, as postSend(SendRequest): the provider guards the post itself.
        checkOpen();
        batch.checkPostable(this);
        try {
            qpVerbs.postSend(handle, batch.chain());
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** {@code ibv_post_recv} of the batch's requests in one call; fails as {@link #postSend(SendBatch)} does. */
    public void postReceive(ReceiveBatch batch) {
        if (srq != null) {
            throw new IllegalStateException(ref() + " receives through " + srq.ref() + ": post receives there");
        }
        checkOpen();
        batch.checkPostable(context);
        try {
            qpVerbs.postRecv(handle, batch.chain());
        } catch (VerbsException e) {
            throw e.about(ref().toString());
        } catch (IllegalStateException e) {
            throw closedOr(e);
        }
    }

    /** The operations the new post API may build on this QP ({@link QueuePairSpec#withSendOps}). */
    public Set<SendOpcode> sendOps() {
        return sendOps;
    }

    /**
     * A session of the new post API ({@code ibv_wr_start}, {@code ibv_wr_send}..., {@code ibv_wr_complete})
     * with room for {@code maxSge} entries per {@link WorkRequestBuilder#sgeList}; one per posting thread.
     *
     * @throws IllegalStateException on a QP created without {@link QueuePairSpec#withSendOps}
     */
    public WorkRequestBuilder newWorkRequestBuilder(int maxSge) {
        QpExOps ops = exOps;
        if (ops == null) {
            throw new IllegalStateException(ref() + " was created without send ops; the new post API needs "
                    + "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS (QueuePairSpec.withSendOps)");
        }
        checkSendSges(maxSge);
        checkOpen();
        return new WorkRequestBuilder(this, ops, maxSge);
    }

    // ---- remote regions -------------------------------------------------------------------------

    /**
     * A handle on memory the peer of this connected RC QP exported to it ({@link RemoteRegion}): a resource
     * under the QP, closed with it, whose operations {@code path} posts on it. A connection's session makes
     * them from the keys its peer sends.
     */
    public RemoteRegion remoteRegion(RemoteRegion.Target target, RemoteRegion.Path path, String name) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(name, "name");
        if (type() != QpType.RC) {
            throw new IllegalArgumentException("one-sided RDMA READ, WRITE and atomics need an RC queue pair; " + ref()
                    + " is " + type());
        }
        return verbs.create(this, List.of(this), () -> new RemoteRegion(this, target, path, name));
    }

    // ---- multicast ------------------------------------------------------------------------------

    /**
     * {@code ibv_attach_mcast}: the QP (UD) receives datagrams sent to {@code group}. While attached,
     * the QP cannot be destroyed; close the attachment ({@code ibv_detach_mcast}) first. Reports name
     * the attachment after the group.
     */
    public MulticastAttachment attachMulticast(Gid group, int lid) {
        return newAttachment(group, lid, null);
    }

    /** {@link #attachMulticast(Gid, int)}, named {@code name} in reports. */
    public MulticastAttachment attachMulticast(Gid group, int lid, String name) {
        return newAttachment(group, lid, Objects.requireNonNull(name, "name"));
    }

    private MulticastAttachment newAttachment(Gid group, int lid, @Nullable String name) {
        Objects.requireNonNull(group, "group");
        if (!group.isMulticast()) {
            throw new IllegalArgumentException(group + " is not a multicast GID (ff00::/8)");
        }
        if (type() != QpType.UD) {
            throw new IllegalArgumentException("only UD queue pairs join multicast groups; " + ref() + " is " + type());
        }
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException("a LID is 0..65535, got " + lid);
        }
        return verbs.create(this, List.of(this), () -> {
            qpVerbs.attachMcast(handle, group, lid);
            return new MulticastAttachment(this, group, lid, name);
        });
    }

    void detachMulticast(Gid group, int lid) {
        qpVerbs.detachMcast(handle, group, lid);
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details(9);
        m.put("qpNum", qpNum());
        m.put("type", type().name());
        m.put("state", state().name());
        QpCapabilities c = capabilities();
        m.put("maxSendWr", c.maxSendWr());
        m.put("maxRecvWr", c.maxRecvWr());
        if (sendCq != null) {
            m.put("sendCq", sendCq.name());
        }
        if (recvCq != null) {
            m.put("recvCq", recvCq.name());
        }
        if (srq != null) {
            m.put("srq", srq.name());
        }
        if (!sendOps.isEmpty()) {
            m.put("sendOps", sendOps.stream().map(Enum::name).sorted().toList());
        }
        return m;
    }

    /** Creating an XRC receive QP registers the creating process with it: that holds the domain. */
    @Override
    Hold holdOn(VerbsResource parent) {
        return type() == QpType.XRC_RECV && parent == xrcd ? XrcReceiveQpRegistration.registrationOn(this)
                : super.holdOn(parent);
    }

    @Override
    QpHandle eventHandle() {
        return handle;
    }

    /** Destroying the QP of a live connection ends it as destroying its id would. */
    @Override
    boolean hasOwnHolds() {
        return cmId != null && cmId.isLiveConnection();
    }

    @Override
    void ownStuckReferences(ResourceRef self, List<StuckReference> out) {
        if (cmId != null && cmId.isLiveConnection()) {
            out.add(cmId.liveConnection(self, releaseVerb()));
        }
    }

    @Override
    List<String> cascadePreparations() {
        List<String> out = new ArrayList<>(super.cascadePreparations());
        if (cmId != null && cmId.isLiveConnection()) {
            out.add("disconnect " + cmId.ref() + " (rdma_disconnect) and wait up to "
                    + cmId.channel().disconnectTimeout() + " for RDMA_CM_EVENT_DISCONNECTED");
        }
        return out;
    }

    /** A cascade disconnects the QP's CM id first, so that the peer learns of it and the work requests flush. */
    @Override
    void prepareCascade() {
        if (cmId != null) {
            cmId.disconnectBeforeRelease();
        }
    }

    /** {@code rdma_destroy_qp(3)} for a CM id's QP: the provider reports {@code ibv_destroy_qp}'s errno. */
    @Override
    String releaseVerb() {
        return cmId != null ? "rdma_destroy_qp" : super.releaseVerb();
    }

    @Override
    void release() {
        if (cmId != null) {
            cmId.destroyQueuePair();
        } else {
            qpVerbs.destroyQp(handle);
        }
    }

    /** Remote access an RC QP is usually given. */
    public static Set<AccessFlag> remoteReadWrite() {
        return EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);
    }
}
