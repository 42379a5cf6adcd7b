package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.chainFailure;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.errnoOfNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.failure;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.memlockHint;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.mtu;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.own;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.ownChain;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.postHint;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.queueDepth;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.released;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.requireOp;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.required;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.returned;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.returnedErrno;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Map;

import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.QpAttributeMask;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.Handle;
import io.rdmaverbs.verbs.provider.QpExOps;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.WorkRequestChain;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.jspecify.annotations.Nullable;

/**
 * The queue pair verbs of {@link NativeVerbsProvider}: creating a QP or opening an XRC one, moving it
 * through its states, querying and destroying it, posting sends and receives (and the off-heap work
 * requests they take), and multicast groups.
 */
final class NativeQpVerbs implements QueuePairVerbs {

    private static final int QUERY_QP_MASK = QpAttributeMask.mask(EnumSet.of(QpAttributeMask.STATE,
            QpAttributeMask.PKEY_INDEX, QpAttributeMask.PORT, QpAttributeMask.QKEY, QpAttributeMask.PATH_MTU,
            QpAttributeMask.DEST_QPN, QpAttributeMask.RQ_PSN, QpAttributeMask.SQ_PSN, QpAttributeMask.ACCESS_FLAGS,
            QpAttributeMask.CAP));

    private final NativeVerbsProvider provider;
    /* The provider's address -> QP map, to turn the QP of an async event back into its handle. */
    private final Map<Long, NativeQp> qps;

    NativeQpVerbs(NativeVerbsProvider provider, Map<Long, NativeQp> qps) {
        this.provider = provider;
        this.qps = qps;
    }

    @Override
    public QpHandle createQp(ContextHandle context, QpInitSpec spec) {
        NativeContext c = provider.live(context, NativeContext.class);
        QpType type = spec.type();
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = initAttr(arena, spec);
            MemorySegment qp = InlineVerbs.ibv_create_qp_ex(state, c.pointer(), attr);
            if (isNull(qp)) {
                int errno = errnoOfNull(state);
                Errno e = Errno.of(errno);
                throw failure("ibv_create_qp_ex", c, errno, e.equals(Errno.EOPNOTSUPP) && spec.sendOpsFlags() != 0
                        ? "device " + c.deviceName() + " cannot build send_ops_flags 0x"
                                + Long.toHexString(spec.sendOpsFlags()) + " on a " + type + " QP (rxe: UD sends only "
                                + "SEND and SEND_WITH_IMM)"
                        : e.equals(Errno.EOPNOTSUPP) && type.isXrc()
                        ? "device " + c.deviceName() + " does not support XRC (IBV_DEVICE_XRC not set)"
                        : e.equals(Errno.EINVAL)
                                ? "a " + type + " QP with " + spec.capabilities() + " was refused: check the send and "
                                        + "receive CQs are given and the sizes are within max_qp_wr / max_sge"
                                : "could not create a " + type + " QP on " + c.deviceName() + memlockHint(errno));
            }
            QpCapabilities granted = IbvQpCap.read(attr, IbvQpInitAttrEx.CAP);
            NativeQp handle = register(qp, c, type, spec.capabilities(), granted);
            if (spec.sendOpsFlags() != 0) {
                try {
                    extend(handle, qp, granted.maxSendSge());
                } catch (RuntimeException e) {
                    destroyQp(handle);   // not handed out: nobody else can release it
                    throw e;
                }
            }
            return handle;
        }
    }

    @Override
    public QpHandle openQp(ContextHandle context, XrcdHandle xrcd, int qpNum, QpType type) {
        NativeContext c = provider.live(context, NativeContext.class);
        NativeXrcd x = provider.live(xrcd, NativeXrcd.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvQpOpenAttr.LAYOUT);
            IbvQpOpenAttr.COMP_MASK.set(attr, IbvQpOpenAttr.IBV_QP_OPEN_ATTR_NUM
                    | IbvQpOpenAttr.IBV_QP_OPEN_ATTR_XRCD | IbvQpOpenAttr.IBV_QP_OPEN_ATTR_TYPE);
            IbvQpOpenAttr.QP_NUM.set(attr, qpNum);
            IbvQpOpenAttr.XRCD.set(attr, x.pointer());
            IbvQpOpenAttr.QP_TYPE.set(attr, type.value());
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
            QpCapabilities none = new QpCapabilities(0, 0, 0, 0, 0);
            return register(qp, c, type, none, none);
        }
    }

    /**
     * The {@code ibv_qp_init_attr_ex} of {@code spec}, its handles checked live; also what
     * {@code rdma_create_qp(3)} reads (its {@code ibv_qp_init_attr} is the prefix).
     */
    MemorySegment initAttr(Arena arena, QpInitSpec spec) {
        QpType type = spec.type();
        MemorySegment attr = arena.allocate(IbvQpInitAttrEx.LAYOUT);
        if (type == QpType.XRC_RECV) {
            NativeXrcd xrcd = provider.live(required(spec.xrcd(), "an XRC_RECV QP needs an XRC domain"),
                    NativeXrcd.class);
            IbvQpInitAttrEx.COMP_MASK.set(attr, IbvQpInitAttrEx.IBV_QP_INIT_ATTR_XRCD);
            IbvQpInitAttrEx.XRCD.set(attr, xrcd.pointer());
        } else {
            NativePd pd = provider.live(required(spec.pd(), "a " + type + " QP needs a protection domain"),
                    NativePd.class);
            IbvQpInitAttrEx.COMP_MASK.set(attr, IbvQpInitAttrEx.IBV_QP_INIT_ATTR_PD);
            IbvQpInitAttrEx.PD.set(attr, pd.pointer());
            IbvQpInitAttrEx.SEND_CQ.set(attr, pointerOf(spec.sendCq(), NativeCq.class));
            IbvQpInitAttrEx.RECV_CQ.set(attr, pointerOf(spec.recvCq(), NativeCq.class));
            IbvQpInitAttrEx.SRQ.set(attr, pointerOf(spec.srq(), NativeSrq.class));
        }
        if (spec.sendOpsFlags() != 0) {
            IbvQpInitAttrEx.COMP_MASK.set(attr, IbvQpInitAttrEx.COMP_MASK.get(attr)
                    | IbvQpInitAttrEx.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
            IbvQpInitAttrEx.SEND_OPS_FLAGS.set(attr, spec.sendOpsFlags());
        }
        IbvQpCap.write(attr, IbvQpInitAttrEx.CAP, spec.capabilities());
        IbvQpInitAttrEx.QP_TYPE.set(attr, type.value());
        IbvQpInitAttrEx.SQ_SIG_ALL.set(attr, spec.signalAll() ? 1 : 0);
        return attr;
    }

    /** The handle on a QP just created (or opened), in the index async events are matched against. */
    NativeQp register(MemorySegment qp, NativeContext context, QpType type, QpCapabilities requested,
            QpCapabilities capabilities) {
        int qpNum = IbvQp.QP_NUM.get(qp.reinterpret(IbvQp.LAYOUT.byteSize()));
        NativeQp handle = new NativeQp(provider, qp, context, type, qpNum, requested, capabilities,
                InlineVerbs.contextOp(qp, IbvQp.CONTEXT, IbvContextOps.POST_SEND),
                InlineVerbs.contextOp(qp, IbvQp.CONTEXT, IbvContextOps.POST_RECV));
        qps.put(qp.address(), handle);
        return handle;
    }

    @Override
    public void destroyQp(QpHandle qp) {
        NativeQp q = provider.live(qp, NativeQp.class);
        // No post is in flight from here on, from any thread: ibv_destroy_qp(3) frees what post_send reads.
        q.calls().destroyQuiesced(() -> {
            MemorySegment state = CallState.current();
            released("ibv_destroy_qp", q, Libibverbs.ibv_destroy_qp(state, q.pointer()), state,
                    "it is still attached to a multicast group (detach it first), or another call on it is in the "
                            + "kernel right now (ib_uverbs refuses a destroy while a command holds the QP)",
                    "could not destroy the QP");
        });
        qps.remove(q.pointer().address(), q);
    }

    @Override
    public void modifyQp(QpHandle qp, QpModification modification) {
        NativeQp q = provider.live(qp, NativeQp.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvQpAttr.LAYOUT);
            // Every field is written; the mask tells the kernel which ones mean something.
            IbvQpAttr.QP_STATE.set(a, modification.state().ordinal());
            IbvQpAttr.PATH_MTU.set(a, modification.pathMtu().value());
            IbvQpAttr.QKEY.set(a, modification.qkey());
            IbvQpAttr.RQ_PSN.set(a, modification.rqPsn());
            IbvQpAttr.SQ_PSN.set(a, modification.sqPsn());
            IbvQpAttr.DEST_QP_NUM.set(a, modification.destQpNum());
            IbvQpAttr.QP_ACCESS_FLAGS.set(a, modification.accessFlags());
            IbvQpAttr.PKEY_INDEX.set(a, (short) modification.pkeyIndex());
            IbvQpAttr.MAX_RD_ATOMIC.set(a, (byte) modification.maxRdAtomic());
            IbvQpAttr.MAX_DEST_RD_ATOMIC.set(a, (byte) modification.maxDestRdAtomic());
            IbvQpAttr.MIN_RNR_TIMER.set(a, (byte) modification.minRnrTimer());
            IbvQpAttr.PORT_NUM.set(a, (byte) modification.port());
            IbvQpAttr.TIMEOUT.set(a, (byte) modification.timeout());
            IbvQpAttr.RETRY_CNT.set(a, (byte) modification.retryCount());
            IbvQpAttr.RNR_RETRY.set(a, (byte) modification.rnrRetry());
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
        NativeQp q = provider.live(qp, NativeQp.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvQpAttr.LAYOUT);
            MemorySegment init = arena.allocate(IbvQpInitAttrEx.LAYOUT);
            int errno = returned(Libibverbs.ibv_query_qp(state, q.pointer(), a, QUERY_QP_MASK, init), state);
            if (errno != 0) {
                throw failure("ibv_query_qp", q, errno, "could not query the QP");
            }
            return new QpAttributes(
                    QpState.of(IbvQpAttr.QP_STATE.get(a)),
                    q.type(),
                    q.qpNum(),
                    Byte.toUnsignedInt(IbvQpAttr.PORT_NUM.get(a)),
                    Short.toUnsignedInt(IbvQpAttr.PKEY_INDEX.get(a)),
                    IbvQpAttr.QKEY.get(a),
                    mtu(IbvQpAttr.PATH_MTU.get(a)),
                    IbvQpAttr.DEST_QP_NUM.get(a),
                    IbvQpAttr.RQ_PSN.get(a),
                    IbvQpAttr.SQ_PSN.get(a),
                    IbvQpAttr.QP_ACCESS_FLAGS.get(a),
                    IbvQpCap.read(a, IbvQpAttr.CAP));
        }
    }

    @Override
    public void postSend(QpHandle qp, SendWr request) {
        NativeQp q = provider.identify(qp, NativeQp.class);
        NativeSendWr wr = own(request);
        // Binding refuses a closed request and a QP destroyed or being destroyed; after that, the guard does.
        NativeWorkRequest.Bound b = wr.boundTo(q, q.calls());
        // A UD send's provider reads the AH during the post (rxe and mlx5 copy its address vector into the
        // WQE): the post holds it, so destroyAh waits for the post or refuses it.
        NativeAh ah = wr.addressHandle();
        CallGuard held = ah == null ? null : wr.holding(ah, ah.calls());
        requireOp("ibv_post_send", q, q.postSend());
        if (held != null && !held.enter()) {
            throw wr.refusal(held);
        }
        CallGuard guard = b.guard();
        if (!guard.enter()) {
            if (held != null) {
                held.exit();
            }
            throw wr.refusal(guard);
        }
        int rc;
        try {
            rc = post(q, b);
        } finally {
            guard.exit();
            if (held != null) {
                held.exit();
            }
        }
        if (rc != 0) {
            int errno = returnedErrno(rc);
            throw failure("ibv_post_send", q, errno, sendHint(q, errno));
        }
    }

    @Override
    public void postSend(QpHandle qp, WorkRequestChain<SendWr> chain) {
        NativeQp q = provider.identify(qp, NativeQp.class);
        NativeWrChain<SendWr> c = ownChain(chain, NativeSendWr.class);
        // As a single post: the binding refuses a closed chain and a QP being destroyed, then the guard does.
        NativeWorkRequest.Bound b = c.boundTo(q, q.calls());
        requireOp("ibv_post_send", q, q.postSend());
        // Only UD sends carry an address handle; the other transports' chains skip the walk.
        int holding = q.type() == QpType.UD ? c.length() : 0;
        holdAddressHandles(c, holding);
        CallGuard guard = b.guard();
        if (!guard.enter()) {
            releaseAddressHandles(c, holding);
            throw c.refusal(guard);
        }
        int rc;
        try {
            rc = post(q, b);
        } finally {
            guard.exit();
            releaseAddressHandles(c, holding);
        }
        if (rc != 0) {
            int errno = returnedErrno(rc);
            throw chainFailure("ibv_post_send", q, errno, sendHint(q, errno), c);
        }
    }

    /**
     * {@code post_send} under the QP's guard. On a QP with send ops it may wait for the send queue's lock, which
     * a session on another thread holds across Java code (rxe and mlx5 take it in {@code wr_start}): a normal
     * downcall then, and refused on the session's own thread, which would wait for itself.
     */
    private static int post(NativeQp q, NativeWorkRequest.Bound b) {
        NativeQpExOps ex = q.exOps();
        if (ex == null) {
            return InlineVerbs.ibv_post_send(q.postSend(), b.qpPointer(), b.wr(), b.badWr());
        }
        ex.session().refuseHeldByCaller("ibv_post_send");
        return InlineVerbs.ibv_post_send_contended(q.postSend(), b.qpPointer(), b.wr(), b.badWr());
    }

    /** Enters the guard on its address handle of each of the first {@code n} requests of {@code c}. */
    private static void holdAddressHandles(NativeWrChain<SendWr> c, int n) {
        for (int i = 0; i < n; i++) {
            NativeSendWr wr = (NativeSendWr) c.slot(i);
            NativeAh ah = wr.addressHandle();
            if (ah != null) {
                CallGuard held = wr.holding(ah, ah.calls());
                if (!held.enter()) {
                    releaseAddressHandles(c, i);
                    throw c.refusal(held);
                }
            }
        }
    }

    /** Leaves what {@link #holdAddressHandles} entered for the first {@code n} requests. */
    private static void releaseAddressHandles(NativeWrChain<SendWr> c, int n) {
        for (int i = 0; i < n; i++) {
            NativeSendWr wr = (NativeSendWr) c.slot(i);
            NativeAh ah = wr.addressHandle();
            if (ah != null) {
                wr.holding(ah, ah.calls()).exit();
            }
        }
    }

    private static String sendHint(NativeQp q, int errno) {
        return postHint(errno, queueDepth("max_send_wr", q.requested().maxSendWr(), q.capabilities().maxSendWr()),
                "max_send_sge (" + q.capabilities().maxSendSge() + ")");
    }

    private static String recvHint(NativeQp q, int errno) {
        return postHint(errno, queueDepth("max_recv_wr", q.requested().maxRecvWr(), q.capabilities().maxRecvWr()),
                "max_recv_sge (" + q.capabilities().maxRecvSge() + ")");
    }

    @Override
    public void postRecv(QpHandle qp, RecvWr request) {
        NativeQp q = provider.identify(qp, NativeQp.class);
        NativeRecvWr wr = own(request);
        NativeWorkRequest.Bound b = wr.boundTo(q, q.calls());
        requireOp("ibv_post_recv", q, q.postRecv());
        CallGuard guard = b.guard();
        if (!guard.enter()) {
            throw wr.refusal(guard);
        }
        int rc;
        try {
            rc = InlineVerbs.ibv_post_recv(q.postRecv(), b.qpPointer(), b.wr(), b.badWr());
        } finally {
            guard.exit();
        }
        if (rc != 0) {
            int errno = returnedErrno(rc);
            throw failure("ibv_post_recv", q, errno, recvHint(q, errno));
        }
    }

    @Override
    public void postRecv(QpHandle qp, WorkRequestChain<RecvWr> chain) {
        NativeQp q = provider.identify(qp, NativeQp.class);
        NativeWrChain<RecvWr> c = ownChain(chain, NativeRecvWr.class);
        NativeWorkRequest.Bound b = c.boundTo(q, q.calls());
        requireOp("ibv_post_recv", q, q.postRecv());
        CallGuard guard = b.guard();
        if (!guard.enter()) {
            throw c.refusal(guard);
        }
        int rc;
        try {
            rc = InlineVerbs.ibv_post_recv(q.postRecv(), b.qpPointer(), b.wr(), b.badWr());
        } finally {
            guard.exit();
        }
        if (rc != 0) {
            int errno = returnedErrno(rc);
            throw chainFailure("ibv_post_recv", q, errno, recvHint(q, errno), c);
        }
    }

    @Override
    public WorkRequestChain<SendWr> newSendChain(int capacity, int maxSge) {
        return new NativeWrChain<>(IbvSendWr.LAYOUT, capacity, maxSge,
                (arena, slot, badWr) -> new NativeSendWr(provider, maxSge, arena, slot, badWr));
    }

    @Override
    public WorkRequestChain<RecvWr> newRecvChain(int capacity, int maxSge) {
        return new NativeWrChain<>(IbvRecvWr.LAYOUT, capacity, maxSge,
                (arena, slot, badWr) -> new NativeRecvWr(maxSge, arena, slot, badWr));
    }

    /** The {@code ibv_qp_ex} libibverbs made of a QP created with send ops ({@code ibv_qp_to_qp_ex}). */
    private void extend(NativeQp handle, MemorySegment qp, int maxSendSge) {
        MemorySegment qpEx = Libibverbs.ibv_qp_to_qp_ex(qp);
        if (isNull(qpEx)) {
            throw new IllegalStateException(handle.describe() + " was created with send_ops_flags but libibverbs "
                    + "has no ibv_qp_ex for it (ibv_qp_to_qp_ex returned NULL)");
        }
        handle.extend(new NativeQpExOps(provider, handle, qpEx, maxSendSge));
    }

    @Override
    public QpExOps qpExOps(QpHandle qp) {
        NativeQp q = provider.live(qp, NativeQp.class);
        NativeQpExOps ops = q.exOps();
        if (ops == null) {
            throw new IllegalArgumentException(q.describe() + " was created without send_ops_flags: it has no ibv_qp_ex");
        }
        return ops;
    }

    @Override
    public SendWr newSendWr(int maxSge) {
        return new NativeSendWr(provider, maxSge);
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
        NativeQp q = provider.live(qp, NativeQp.class);
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

    private MemorySegment pointerOf(@Nullable Handle handle, Class<? extends NativeHandle> kind) {
        return handle == null ? MemorySegment.NULL : provider.live(handle, kind).pointer();
    }
}
