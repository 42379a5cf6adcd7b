package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;
import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.sameContext;
import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.users;

import java.util.Objects;

import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

/**
 * Shared receive queues: {@code ibv_create_srq} (basic) and {@code ibv_create_srq_ex} (XRC, numbered
 * for XRC senders), {@code ibv_destroy_srq} with its EBUSY refcount, and {@code ibv_post_srq_recv}.
 */
final class SimSrqVerbs implements SharedReceiveQueueVerbs {

    private final SimUverbs uverbs;
    private final Fabric fabric;

    SimSrqVerbs(SimUverbs uverbs) {
        this.uverbs = uverbs;
        this.fabric = uverbs.fabric;
    }

    @Override
    public SrqHandle createSrq(ContextHandle context, SrqInitSpec spec) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        Objects.requireNonNull(spec, "spec");
        SimPd pd = uverbs.own(spec.pd(), SimPd.class);
        SimXrcd xrcd = spec.xrcd() == null ? null : uverbs.own(spec.xrcd(), SimXrcd.class);
        SimCq cq = spec.cq() == null ? null : uverbs.own(spec.cq(), SimCq.class);
        SimDevice d = ctx.device;
        String verb = spec.type() == SrqType.XRC ? "ibv_create_srq_ex" : "ibv_create_srq";
        uverbs.call(verb, ctx);
        return locked(d, () -> {
            d.requireAlive(verb, ctx.describe());
            sameContext(verb, ctx, pd);
            if (spec.type() == SrqType.XRC) {
                if (!d.profile.supportsXrc()) {
                    throw new VerbsException(verb, ctx.describe(), d.driver().xrcSrqUnsupported(), "device "
                            + d.name() + " does not support XRC; use a basic SRQ");
                }
                if (xrcd == null || cq == null) {
                    throw new VerbsException(verb, ctx.describe(), Errno.EINVAL,
                            "an XRC SRQ needs an XRC domain and a CQ");
                }
                sameContext(verb, ctx, xrcd);
                sameContext(verb, ctx, cq);
            }
            DeviceAttributes a = d.profile.attributes();
            if (spec.maxWr() <= 0 || spec.maxWr() > a.maxSrqWr()) {
                throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "max_wr " + spec.maxWr()
                        + " is outside 1.." + a.maxSrqWr() + " (max_srq_wr)");
            }
            if (spec.maxSge() > a.maxSrqSge()) {
                throw new VerbsException(verb, ctx.describe(), Errno.EINVAL, "max_sge " + spec.maxSge()
                        + " is above max_srq_sge " + a.maxSrqSge());
            }
            d.allocate(KernelObjectKind.SRQ, verb, ctx.describe());
            boolean xrc = spec.type() == SrqType.XRC;
            int srqNum = xrc ? d.allocateSrqNum() : 0;
            SimSrq srq = new SimSrq(ctx, d.nextId(KernelObjectKind.SRQ), pd, spec.type(), xrc ? xrcd : null,
                    xrc ? cq : null, Driver.queueSlots(spec.maxWr()), Math.max(spec.maxSge(), 1), srqNum);
            pd.usecnt++;
            if (xrc) {
                cq.usecnt++;
                xrcd.usecnt++;
                d.xrcSrqs.put(srqNum, srq);
            }
            ctx.adopt(srq);
            return srq;
        });
    }

    @Override
    public void destroySrq(SrqHandle srq) {
        SimSrq s = uverbs.own(srq, SimSrq.class);
        uverbs.call("ibv_destroy_srq", s);
        SimDevice d = s.device;
        uverbs.onFabric(() -> {
            s.requireUsable();
            if (!d.fatal && s.usecnt > 0) {
                throw new VerbsException("ibv_destroy_srq", s.describe(), Errno.EBUSY, "still used by " + s.usecnt
                        + " QP(s): " + users(s.context(), h -> h instanceof SimQp q && q.qp.srq == s)
                        + "; destroy them first");
            }
            s.pd.usecnt--;
            if (s.cq != null) {
                s.cq.usecnt--;
            }
            if (s.xrcd != null) {
                s.xrcd.usecnt--;
                d.xrcSrqs.remove(s.srqNum());
            }
            s.queue.clear();
            d.free(KernelObjectKind.SRQ);
            s.context().release(s);
            s.markDestroyed();
            fabric.pumpStalled();
        });
    }

    /** Holds every device's lock, as posting to a QP does: the receive can restart a send stalled for want of one. */
    @Override
    public void postSrqRecv(SrqHandle srq, RecvWr request) {
        SimSrq s = uverbs.own(srq, SimSrq.class);
        SimRecvWr wr = uverbs.ownRequest(request);
        uverbs.call("ibv_post_srq_recv", s);
        uverbs.onFabric(() -> {
            s.requireUsable();
            s.device.requireAlive("ibv_post_srq_recv", s.describe());
            postOne(s, wr);
            fabric.pumpStalled();
        });
    }

    /** A chain, walked WR by WR; the receives queued before a failure stay queued (rxe's {@code rxe_post_srq_recv}). */
    @Override
    public void postSrqRecv(SrqHandle srq, WorkRequestChain<RecvWr> chain) {
        SimSrq s = uverbs.own(srq, SimSrq.class);
        SimWrChain<RecvWr> c = uverbs.ownChain(chain, SimRecvWr.class);
        uverbs.call("ibv_post_srq_recv", s);
        uverbs.onFabric(() -> {
            s.requireUsable();
            s.device.requireAlive("ibv_post_srq_recv", s.describe());
            try {
                SimPostVerbs.walkReceives(c, wr -> postOne(s, wr));
            } finally {
                fabric.pumpStalled();
            }
        });
    }

    private static void postOne(SimSrq s, SimRecvWr wr) {
        if (wr.sgeCount() > s.maxSge) {
            throw new VerbsException("ibv_post_srq_recv", s.describe(), Errno.EINVAL, wr.sgeCount()
                    + " SGEs exceed the SRQ's max_sge " + s.maxSge);
        }
        if (s.queue.size() >= s.slots) {
            throw new VerbsException("ibv_post_srq_recv", s.describe(), Errno.ENOMEM, "the SRQ is full ("
                    + s.slots + " receive WRs posted and not consumed)");
        }
        s.queue.addLast(PostedRecv.of(wr));
    }
}
