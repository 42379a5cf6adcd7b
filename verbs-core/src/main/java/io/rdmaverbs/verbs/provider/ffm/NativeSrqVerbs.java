package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.chainFailure;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.errnoOfNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.failure;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.memlockHint;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.own;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.ownChain;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.postHint;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.released;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.requireOp;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.required;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.returned;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.returnedErrno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

/**
 * The shared receive queue verbs of {@link NativeVerbsProvider}: creating a basic or XRC SRQ,
 * destroying it, and posting receives to it.
 */
final class NativeSrqVerbs implements SharedReceiveQueueVerbs {

    private final NativeVerbsProvider provider;
    /* The provider's address -> SRQ map, to turn the SRQ of an async event back into its handle. */
    private final Map<Long, NativeSrq> srqs;

    NativeSrqVerbs(NativeVerbsProvider provider, Map<Long, NativeSrq> srqs) {
        this.provider = provider;
        this.srqs = srqs;
    }

    @Override
    public SrqHandle createSrq(ContextHandle context, SrqInitSpec spec) {
        NativeContext c = provider.live(context, NativeContext.class);
        NativePd pd = provider.live(spec.pd(), NativePd.class);
        boolean xrc = spec.type() == SrqType.XRC;
        NativeXrcd xrcd = null;
        NativeCq cq = null;
        if (xrc) {
            xrcd = provider.live(required(spec.xrcd(), "an XRC SRQ needs an XRC domain"), NativeXrcd.class);
            cq = provider.live(required(spec.cq(), "an XRC SRQ needs a CQ"), NativeCq.class);
        }
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvSrqInitAttrEx.LAYOUT);
            IbvSrqAttr.MAX_WR.set(attr, IbvSrqInitAttrEx.ATTR, spec.maxWr());
            IbvSrqAttr.MAX_SGE.set(attr, IbvSrqInitAttrEx.ATTR, spec.maxSge());
            IbvSrqAttr.SRQ_LIMIT.set(attr, IbvSrqInitAttrEx.ATTR, spec.limit());
            int mask = IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_TYPE | IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_PD;
            IbvSrqInitAttrEx.PD.set(attr, pd.pointer());
            if (xrc) {
                mask |= IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_XRCD | IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_CQ;
                IbvSrqInitAttrEx.XRCD.set(attr, xrcd.pointer());
                IbvSrqInitAttrEx.CQ.set(attr, cq.pointer());
            }
            IbvSrqInitAttrEx.COMP_MASK.set(attr, mask);
            IbvSrqInitAttrEx.SRQ_TYPE.set(attr, xrc ? IbvSrqInitAttrEx.IBV_SRQT_XRC : IbvSrqInitAttrEx.IBV_SRQT_BASIC);
            MemorySegment srq = InlineVerbs.ibv_create_srq_ex(state, c.pointer(), attr);
            if (isNull(srq)) {
                int errno = errnoOfNull(state);
                Errno e = Errno.of(errno);
                throw failure(xrc ? "ibv_create_srq_ex" : "ibv_create_srq", c, errno, e.equals(Errno.EOPNOTSUPP) && xrc
                        ? "device " + c.deviceName() + " does not support XRC (IBV_DEVICE_XRC not set)"
                        : e.equals(Errno.EINVAL)
                                ? "max_wr " + spec.maxWr() + ", max_sge " + spec.maxSge() + " or limit " + spec.limit()
                                        + " is beyond max_srq_wr / max_srq_sge of the device"
                                : "could not create an SRQ on " + c.deviceName() + memlockHint(errno));
            }
            int srqNum = 0;
            if (xrc) {
                MemorySegment number = arena.allocate(U32);
                int errno = returned(InlineVerbs.ibv_get_srq_num(state, srq, number), state);
                if (errno != 0) {
                    Libibverbs.ibv_destroy_srq(state, srq);
                    throw failure("ibv_get_srq_num", c, errno, "could not read the number of the new XRC SRQ");
                }
                srqNum = number.get(U32, 0);
            }
            NativeSrq handle = new NativeSrq(provider, srq, c, srqNum,
                    InlineVerbs.contextOp(srq, IbvSrq.CONTEXT, IbvContextOps.POST_SRQ_RECV));
            srqs.put(srq.address(), handle);
            return handle;
        }
    }

    @Override
    public void destroySrq(SrqHandle srq) {
        NativeSrq s = provider.live(srq, NativeSrq.class);
        // No post is in flight from here on, from any thread: ibv_destroy_srq(3) frees what post_srq_recv writes.
        s.calls().destroyQuiesced(() -> {
            MemorySegment state = CallState.current();
            released("ibv_destroy_srq", s, Libibverbs.ibv_destroy_srq(state, s.pointer()), state,
                    "QPs still receive through it: destroy them first",
                    "could not destroy the SRQ");
        });
        srqs.remove(s.pointer().address(), s);
    }

    @Override
    public void postSrqRecv(SrqHandle srq, RecvWr request) {
        NativeSrq s = provider.identify(srq, NativeSrq.class);
        NativeRecvWr wr = own(request);
        // As a post to a QP: the binding refuses a closed request and an SRQ being destroyed, then the guard does.
        NativeWorkRequest.Bound b = wr.boundTo(s, s.calls());
        requireOp("ibv_post_srq_recv", s, s.postSrqRecv());
        CallGuard guard = b.guard();
        if (!guard.enter()) {
            throw wr.refusal(guard);
        }
        int rc;
        try {
            rc = InlineVerbs.ibv_post_srq_recv(s.postSrqRecv(), b.qpPointer(), b.wr(), b.badWr());
        } finally {
            guard.exit();
        }
        if (rc != 0) {
            int errno = returnedErrno(rc);
            throw failure("ibv_post_srq_recv", s, errno, postHint(errno, "max_wr of the SRQ", "max_sge of the SRQ"));
        }
    }

    @Override
    public void postSrqRecv(SrqHandle srq, WorkRequestChain<RecvWr> chain) {
        NativeSrq s = provider.identify(srq, NativeSrq.class);
        NativeWrChain<RecvWr> c = ownChain(chain, NativeRecvWr.class);
        NativeWorkRequest.Bound b = c.boundTo(s, s.calls());
        requireOp("ibv_post_srq_recv", s, s.postSrqRecv());
        CallGuard guard = b.guard();
        if (!guard.enter()) {
            throw c.refusal(guard);
        }
        int rc;
        try {
            rc = InlineVerbs.ibv_post_srq_recv(s.postSrqRecv(), b.qpPointer(), b.wr(), b.badWr());
        } finally {
            guard.exit();
        }
        if (rc != 0) {
            int errno = returnedErrno(rc);
            throw chainFailure("ibv_post_srq_recv", s, errno, postHint(errno, "max_wr of the SRQ",
                    "max_sge of the SRQ"), c);
        }
    }
}
