package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;
import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.sameContext;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.QpExOps;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.QueueLock;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.WorkRequestChain;
import io.rdmaverbs.verbs.provider.XrcdHandle;

/**
 * The simulator's queue pair verbs. The life of queue pairs is here: {@code ibv_create_qp_ex} against the
 * device limits, {@code ibv_open_qp} of an XRC receive QP, {@code ibv_destroy_qp} (the QP goes with its
 * last handle), multicast attachments and the work request buffers. State transitions
 * ({@link SimQpStateVerbs}) and posting ({@link SimPostVerbs}) are each a screen of kernel rules of their
 * own: this class hands those verbs to them.
 */
final class SimQpVerbs implements QueuePairVerbs {

    private final SimUverbs uverbs;
    private final Fabric fabric;
    private final SimQpStateVerbs states;
    private final SimPostVerbs posting;

    SimQpVerbs(SimUverbs uverbs) {
        this.uverbs = uverbs;
        this.fabric = uverbs.fabric;
        this.states = new SimQpStateVerbs(uverbs);
        this.posting = new SimPostVerbs(uverbs);
    }

    @Override
    public QpHandle createQp(ContextHandle context, QpInitSpec spec) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        Objects.requireNonNull(spec, "spec");
        QpType type = spec.type();
        boolean target = type == QpType.XRC_RECV;
        // The kernel ignores PD, CQs and SRQ of an XRC receive QP, and the SRQ of an XRC send QP.
        SimXrcd xrcd = spec.xrcd() == null || !target ? null : uverbs.own(spec.xrcd(), SimXrcd.class);
        SimPd pd = spec.pd() == null || target ? null : uverbs.own(spec.pd(), SimPd.class);
        SimCq sendCq = spec.sendCq() == null || target ? null : uverbs.own(spec.sendCq(), SimCq.class);
        SimCq recvCq = spec.recvCq() == null || target || type == QpType.XRC_SEND ? null
                : uverbs.own(spec.recvCq(), SimCq.class);
        SimSrq srq = spec.srq() == null || type.isXrc() ? null : uverbs.own(spec.srq(), SimSrq.class);
        uverbs.call("ibv_create_qp_ex", ctx);
        SimDevice d = ctx.device;
        String verb = "ibv_create_qp_ex";
        return locked(d, () -> {
            if (type.isXrc() && !d.profile.supportsXrc()) {
                throw new VerbsException(verb, ctx.describe(), Errno.EOPNOTSUPP, "device " + d.name()
                        + " does not support XRC QPs; use RC");
            }
            d.requireAlive(verb, ctx.describe());
            if (target) {
                if (xrcd == null) {
                    throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "an XRC receive QP needs an XRC domain");
                }
                sameContext(verb, ctx, xrcd);
            } else {
                if (pd == null) {
                    throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "a " + type + " QP needs a PD");
                }
                if (sendCq == null || (recvCq == null && type != QpType.XRC_SEND)) {
                    throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "a " + type
                            + " QP needs a send CQ" + (type == QpType.XRC_SEND ? "" : " and a receive CQ"));
                }
                sameContext(verb, ctx, pd);
                sameContext(verb, ctx, sendCq);
                if (recvCq != null) {
                    sameContext(verb, ctx, recvCq);
                }
                if (srq != null) {
                    sameContext(verb, ctx, srq);
                    if (srq.type != SrqType.BASIC) {
                        throw new VerbsException(verb, ctx.describe(), Errno.EINVAL,
                                "only a basic SRQ can feed a QP; XRC SRQs are addressed by XRC senders");
                    }
                }
            }
            long unsupportedOps = spec.sendOpsFlags() & ~d.driver().supportedSendOps(type);
            if (unsupportedOps != 0) {
                // rxe's check_qp_init_attr, before any system call.
                throw new VerbsException(verb, ctx.describe(), Errno.EOPNOTSUPP, d.name() + " cannot build "
                        + "send_ops_flags 0x" + Long.toHexString(unsupportedOps) + " on a " + type + " QP");
            }
            QpCapabilities requested = target ? new QpCapabilities(0, 0, 0, 0, 0)
                    : receiveless(spec.capabilities(), srq != null || type == QpType.XRC_SEND);
            checkCapabilities(verb, ctx, requested);
            d.allocate(KernelObjectKind.QP, verb, ctx.describe());
            int qpNum = d.allocateQpNum();
            QpCapabilities granted = target ? requested : d.driver().granted(requested);
            KernelQp qp = new KernelQp(d, type, qpNum, ctx, pd, sendCq, recvCq, srq, target ? xrcd.domain : null,
                    spec.signalAll(), granted, Driver.queueSlots(requested.maxSendWr()),
                    Driver.queueSlots(requested.maxRecvWr()));
            d.qps.put(qpNum, qp);
            if (pd != null) {
                pd.usecnt++;
            }
            if (sendCq != null) {
                sendCq.usecnt++;
            }
            if (recvCq != null) {
                recvCq.usecnt++;
            }
            if (srq != null) {
                srq.usecnt++;
            }
            SimQp handle = new SimQp(ctx, qp, xrcd, false);
            if (spec.sendOpsFlags() != 0) {
                handle.exOps = new SimQpExOps(uverbs, handle, spec.sendOpsFlags());
            }
            if (target) {
                // ibv_create_qp_ex of an XRC receive QP registers the creating process implicitly.
                xrcd.domain.receiveQps.put(qpNum, qp);
                xrcd.usecnt++;
            }
            qp.handles.add(handle);
            ctx.adopt(handle);
            return handle;
        });
    }

    private static QpCapabilities receiveless(QpCapabilities caps, boolean noReceiveQueue) {
        return noReceiveQueue ? new QpCapabilities(caps.maxSendWr(), 0, caps.maxSendSge(), 0, caps.maxInlineData())
                : caps;
    }

    private static void checkCapabilities(String verb, SimContext ctx, QpCapabilities caps) {
        SimDevice d = ctx.device;
        DeviceAttributes a = d.profile.attributes();
        String problem = null;
        if (caps.maxSendWr() > a.maxQpWr() || caps.maxRecvWr() > a.maxQpWr()) {
            problem = "max_send_wr/max_recv_wr " + caps.maxSendWr() + "/" + caps.maxRecvWr() + " above max_qp_wr "
                    + a.maxQpWr();
        } else if (caps.maxSendSge() > a.maxSge() || caps.maxRecvSge() > a.maxSge()) {
            problem = "max_send_sge/max_recv_sge " + caps.maxSendSge() + "/" + caps.maxRecvSge() + " above max_sge "
                    + a.maxSge();
        } else if (caps.maxInlineData() > d.profile.maxInlineData()) {
            problem = "max_inline_data " + caps.maxInlineData() + " above the device's " + d.profile.maxInlineData();
        }
        if (problem != null) {
            throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, problem + " of " + d.name());
        }
    }

    /** {@code ibv_open_qp}: registers this context with an XRC receive QP of the domain. */
    @Override
    public QpHandle openQp(ContextHandle context, XrcdHandle xrcd, int qpNum, QpType type) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        SimXrcd x = uverbs.own(xrcd, SimXrcd.class);
        uverbs.call("ibv_open_qp", ctx);
        Objects.requireNonNull(type, "type");
        SimDevice d = ctx.device;
        return locked(d, () -> {
            d.requireAlive("ibv_open_qp", ctx.describe());
            sameContext("ibv_open_qp", ctx, x);
            if (type != QpType.XRC_RECV) {
                throw new VerbsException("ibv_open_qp", x.describe(), Errno.EINVAL, "only XRC receive QPs can be"
                        + " opened, not " + type);
            }
            KernelQp qp = x.domain.receiveQps.get(qpNum);
            if (qp == null || qp.destroyed) {
                throw new VerbsException("ibv_open_qp", x.describe(), Errno.EINVAL, "no XRC receive QP " + qpNum
                        + " in this XRC domain" + (d.qps.containsKey(qpNum) ? " (QP " + qpNum
                                + " exists but is not an XRC receive QP of this domain)" : ""));
            }
            SimQp handle = new SimQp(ctx, qp, x, true);
            qp.handles.add(handle);
            x.usecnt++;
            ctx.adopt(handle);
            return handle;
        });
    }

    /**
     * {@code ibv_destroy_qp}: EBUSY while the handle has multicast attachments. For an XRC receive QP it
     * drops this context's registration; the QP itself goes with the last one.
     */
    @Override
    public void destroyQp(QpHandle qp) {
        SimQp h = uverbs.own(qp, SimQp.class);
        uverbs.call("ibv_destroy_qp", h);
        // An open session writes the send queue until its end, as the native provider's destroy waits for it.
        QueueLock.shutFor(h.exOps == null ? null : h.exOps.session, () -> destroyUnderFabric(h));
    }

    private void destroyUnderFabric(SimQp h) {
        SimDevice d = h.device;
        uverbs.onFabric(() -> {
            h.requireUsable();
            if (!d.fatal && !h.attachments.isEmpty()) {
                throw new VerbsException("ibv_destroy_qp", h.describe(), Errno.EBUSY, "still attached to multicast"
                        + " group(s) " + h.attachments.stream().map(a -> a.gid().toString())
                                .collect(Collectors.joining(", ")) + "; detach them first (ibv_detach_mcast)");
            }
            KernelQp q = h.qp;
            for (SimQp.Attachment a : List.copyOf(h.attachments)) {
                detach(h, a); // only after a fatal error: the kernel forgets them with the device
            }
            q.handles.remove(h);
            if (h.xrcd != null) {
                h.xrcd.usecnt--;
            }
            if (q.handles.isEmpty()) {
                destroyQueuePair(q);
            }
            h.context().release(h);
            h.markDestroyed();
            fabric.pumpStalled();
        });
    }

    private void destroyQueuePair(KernelQp q) {
        SimDevice d = q.device;
        q.destroyed = true;
        fabric.forget(q);
        d.qps.remove(q.qpNum);
        if (q.domain != null) {
            q.domain.receiveQps.remove(q.qpNum);
        }
        if (q.pd != null) {
            q.pd.usecnt--;
        }
        if (q.sendCq != null) {
            q.sendCq.usecnt--;
        }
        if (q.recvCq != null) {
            q.recvCq.usecnt--;
        }
        if (q.srq != null) {
            q.srq.usecnt--;
        }
        d.free(KernelObjectKind.QP);
    }

    @Override
    public void modifyQp(QpHandle qp, QpModification modification) {
        states.modifyQp(qp, modification);
    }

    @Override
    public QpAttributes queryQp(QpHandle qp) {
        return states.queryQp(qp);
    }

    @Override
    public void postSend(QpHandle qp, SendWr request) {
        posting.postSend(qp, request);
    }

    @Override
    public void postRecv(QpHandle qp, RecvWr request) {
        posting.postRecv(qp, request);
    }

    @Override
    public SendWr newSendWr(int maxSge) {
        return new SimSendWr(uverbs.provider, maxSge);
    }

    @Override
    public RecvWr newRecvWr(int maxSge) {
        return new SimRecvWr(uverbs.provider, maxSge);
    }

    @Override
    public QpExOps qpExOps(QpHandle qp) {
        SimQp h = uverbs.own(qp, SimQp.class);
        SimQpExOps ops = h.exOps;
        if (ops == null) {
            throw new IllegalArgumentException(h.describe() + " was created without send_ops_flags: it has no ibv_qp_ex");
        }
        return ops;
    }

    @Override
    public void postSend(QpHandle qp, WorkRequestChain<SendWr> chain) {
        posting.postSend(qp, chain);
    }

    @Override
    public void postRecv(QpHandle qp, WorkRequestChain<RecvWr> chain) {
        posting.postRecv(qp, chain);
    }

    @Override
    public WorkRequestChain<SendWr> newSendChain(int capacity, int maxSge) {
        return new SimWrChain<>(uverbs.provider, capacity, () -> new SimSendWr(uverbs.provider, maxSge));
    }

    @Override
    public WorkRequestChain<RecvWr> newRecvChain(int capacity, int maxSge) {
        return new SimWrChain<>(uverbs.provider, capacity, () -> new SimRecvWr(uverbs.provider, maxSge));
    }

    /**
     * {@code ibv_attach_mcast}: a UD QP and a multicast GID ({@code ff00::/8}); on InfiniBand ports the
     * LID must be a multicast LID. Attaching the same (GID, LID) twice succeeds once.
     */
    @Override
    public void attachMcast(QpHandle qp, Gid gid, int lid) {
        SimQp h = uverbs.own(qp, SimQp.class);
        uverbs.call("ibv_attach_mcast", h);
        Objects.requireNonNull(gid, "gid");
        SimDevice d = h.device;
        String verb = "ibv_attach_mcast";
        locked(d, () -> {
            h.requireUsable();
            d.requireAlive(verb, h.describe());
            SimQp.Attachment attachment = new SimQp.Attachment(gid, lid);
            if (h.attachments.contains(attachment)) {
                return;
            }
            KernelQp q = h.qp;
            if (!gid.isMulticast() || q.type != QpType.UD || !validMulticastLid(q, lid)) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, q.type != QpType.UD
                        ? "only UD QPs join multicast groups, this is " + q.type
                        : !gid.isMulticast() ? gid + " is not a multicast GID (ff00::/8)"
                        : "LID " + lid + " is not a multicast LID (0xc000..0xfffe) on an InfiniBand port");
            }
            DeviceAttributes a = d.profile.attributes();
            Set<KernelQp> members = d.multicastGroups.get(gid);
            if (members == null && d.multicastGroups.size() >= a.maxMcastGrp()) {
                throw new VerbsException(verb, h.describe(), Errno.ENOMEM, d.name() + " already has "
                        + a.maxMcastGrp() + " multicast groups (max_mcast_grp)");
            }
            if (members != null && !members.contains(q) && members.size() >= a.maxMcastQpAttach()) {
                throw new VerbsException(verb, h.describe(), Errno.ENOMEM, "group " + gid + " already has "
                        + a.maxMcastQpAttach() + " QPs (max_mcast_qp_attach)");
            }
            d.multicastGroups.computeIfAbsent(gid, g -> new LinkedHashSet<>()).add(q);
            h.attachments.add(attachment);
        });
    }

    @Override
    public void detachMcast(QpHandle qp, Gid gid, int lid) {
        SimQp h = uverbs.own(qp, SimQp.class);
        uverbs.call("ibv_detach_mcast", h);
        Objects.requireNonNull(gid, "gid");
        SimDevice d = h.device;
        locked(d, () -> {
            h.requireUsable();
            d.requireAlive("ibv_detach_mcast", h.describe());
            SimQp.Attachment attachment = new SimQp.Attachment(gid, lid);
            if (!h.attachments.contains(attachment)) {
                throw new VerbsException("ibv_detach_mcast", h.describe(), Errno.EINVAL, "not attached to " + gid
                        + " with LID " + lid);
            }
            detach(h, attachment);
        });
    }

    private static void detach(SimQp h, SimQp.Attachment attachment) {
        h.attachments.remove(attachment);
        boolean stillMember = h.qp.handles.stream()
                .anyMatch(other -> other.attachments.stream().anyMatch(a -> a.gid().equals(attachment.gid())));
        if (!stillMember) {
            Map<Gid, Set<KernelQp>> groups = h.device.multicastGroups;
            Set<KernelQp> members = groups.get(attachment.gid());
            if (members != null) {
                members.remove(h.qp);
                if (members.isEmpty()) {
                    groups.remove(attachment.gid());
                }
            }
        }
    }

    /** The kernel's {@code is_valid_mcast_lid}: LIDs only matter on InfiniBand ports. */
    private static boolean validMulticastLid(KernelQp q, int lid) {
        SimDevice d = q.device;
        boolean infiniband;
        if (q.state != QpState.RESET && d.hasPort(q.port)) {
            infiniband = d.profile.port(q.port).linkLayer() == LinkLayer.INFINIBAND;
        } else {
            infiniband = d.profile.ports().stream().allMatch(p -> p.linkLayer() == LinkLayer.INFINIBAND);
        }
        return !infiniband || (lid >= 0xc000 && lid != 0xffff);
    }
}
