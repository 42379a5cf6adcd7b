package io.rdmaverbs.verbs.provider.simulated;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Consumer;

import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.PostFailedException;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QueueLock;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

/**
 * Posting work requests to a QP: {@code ibv_post_send} and {@code ibv_post_recv}, for {@link SimQpVerbs}.
 * Each holds every device's lock: a send runs to completion at the responder before it returns, and a
 * receive can restart a send stalled for want of one ({@link SimSrqVerbs#postSrqRecv} likewise).
 */
final class SimPostVerbs {

    private final SimUverbs uverbs;
    private final Fabric fabric;

    SimPostVerbs(SimUverbs uverbs) {
        this.uverbs = uverbs;
        this.fabric = uverbs.fabric;
    }

    /**
     * {@code ibv_post_send}. Before RTS it fails with EINVAL as on rxe: the WQE is written to the
     * user-mapped queue, but the doorbell system call finds the requester not ready and returns EINVAL,
     * and the WR never runs (observed). In ERR (or SQE) the WR is accepted and flushed.
     */
    void postSend(QpHandle qp, SendWr request) {
        SimQp h = uverbs.own(qp, SimQp.class);
        SimSendWr wr = uverbs.ownRequest(request);
        uverbs.call("ibv_post_send", h);
        underSendQueue(h, () -> {
            h.requireUsable();
            h.device.requireAlive("ibv_post_send", h.describe());
            postOneSend(h, wr);
        });
    }

    /**
     * rxe's {@code post_send} takes the send queue's lock, which a session of the new post API holds across
     * calls: a post waits for another thread's session and is refused inside its own thread's.
     */
    private void underSendQueue(SimQp h, Runnable post) {
        QueueLock.takenFor(h.exOps == null ? null : h.exOps.session, "ibv_post_send", () -> {
            uverbs.onFabric(post);
            return null;
        });
    }

    /**
     * {@code ibv_post_send} of a chain: rdma-core's providers walk the {@code next} links and stop at
     * the first WR they cannot queue, which {@code bad_wr} names; those before it stay posted (rxe's
     * {@code rxe_post_send}). A QP that cannot send fails at the first WR, so nothing is posted: on rxe
     * the doorbell refuses the whole call.
     */
    void postSend(QpHandle qp, WorkRequestChain<SendWr> chain) {
        SimQp h = uverbs.own(qp, SimQp.class);
        SimWrChain<SendWr> c = uverbs.ownChain(chain, SimSendWr.class);
        uverbs.call("ibv_post_send", h);
        underSendQueue(h, () -> {
            h.requireUsable();
            h.device.requireAlive("ibv_post_send", h.describe());
            walk(c, wr -> postOneSend(h, (SimSendWr) wr));
        });
    }

    /** Posts each WR of the chain in order; the first failure names its index and ends the walk. */
    private static void walk(SimWrChain<?> chain, Consumer<SimWorkRequest> post) {
        int n = chain.length();
        for (int i = 0; i < n; i++) {
            try {
                post.accept(chain.slot(i));
            } catch (VerbsException e) {
                throw new PostFailedException(e.verb(), e.resource(), e.errno(), e.reason(), i, n);
            }
        }
    }

    private void postOneSend(SimQp h, SimSendWr wr) {
        AhHandle addressHandle = wr.addressHandle();
        SimDevice d = h.device;
        String verb = "ibv_post_send";
        KernelQp q = h.qp;
        if (q.type == QpType.XRC_RECV) {
            throw new VerbsException(verb, h.describe(), Errno.EINVAL, "an XRC receive QP has no send queue;"
                    + " send from an XRC send QP");
        }
        if (q.state == QpState.RESET || q.state == QpState.INIT || q.state == QpState.RTR) {
            throw new VerbsException(verb, h.describe(), Errno.EINVAL, "the QP is in " + q.state
                    + "; it can send only in RTS (modify it RTR->RTS first)");
        }
        int sges = wr.sgeCount();
        if (sges > q.reported.maxSendSge()) {
            throw new VerbsException(verb, h.describe(), Errno.EINVAL, sges + " SGEs exceed max_send_sge "
                    + q.reported.maxSendSge());
        }
        long length = 0;
        for (int i = 0; i < sges; i++) {
            length += Integer.toUnsignedLong(wr.sgeLength(i));
        }
        boolean inline = (wr.flags() & SendFlag.INLINE) != 0;
        if (inline && length > q.reported.maxInlineData()) {
            throw new VerbsException(verb, h.describe(), Errno.EINVAL, "inline data of " + length
                    + " bytes exceeds max_inline_data " + q.reported.maxInlineData());
        }
        SendOpcode op = wr.opcode();
        if ((op == SendOpcode.ATOMIC_CMP_AND_SWP || op == SendOpcode.ATOMIC_FETCH_AND_ADD)
                && (length < 8 || (wr.remoteAddress() & 7) != 0)) {
            throw new VerbsException(verb, h.describe(), Errno.EINVAL, "an atomic needs an 8-byte local"
                    + " buffer and an 8-byte aligned remote address");
        }
        SimAh ah = null;
        if (q.type == QpType.UD) {
            if (addressHandle == null) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "a UD send needs an address handle"
                        + " (SendWr.datagram)");
            }
            ah = uverbs.own(addressHandle, SimAh.class);
            if (ah.device != d) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, ah.describe()
                        + " was created on another device");
            }
        }
        if (q.sendQueue.size() >= q.sendSlots) {
            throw new VerbsException(verb, h.describe(), Errno.ENOMEM, "the send queue is full ("
                    + q.sendSlots + " WRs outstanding)");
        }
        long[] addresses = new long[sges];
        int[] lengths = new int[sges];
        int[] lkeys = new int[sges];
        for (int i = 0; i < sges; i++) {
            addresses[i] = wr.sgeAddress(i);
            lengths[i] = wr.sgeLength(i);
            lkeys[i] = wr.sgeLkey(i);
        }
        byte[] inlineData = inline ? readInline(d, addresses, lengths) : null;
        PostedSend posted = new PostedSend(wr.wrId(), op, wr.flags(), addresses, lengths, lkeys, inlineData,
                wr.immediateData(), wr.remoteAddress(), wr.rkey(), wr.compareAdd(), wr.swap(), ah,
                wr.remoteQpn(), wr.remoteQkey(), wr.xrcRemoteSrqNum());
        fabric.submit(q, posted);
    }

    /**
     * Inline data is copied from the caller's memory at post time and needs no MR. Registered memory is
     * read through its MR's segment; anything else through a raw view of the address, as libibverbs'
     * memcpy would read it (a bad address crashes here as it would there).
     */
    @SuppressWarnings("restricted")
    static byte[] readInline(SimDevice d, long[] addresses, int[] lengths) {
        int total = 0;
        for (int length : lengths) {
            total += length;
        }
        byte[] data = new byte[total];
        int offset = 0;
        for (int i = 0; i < addresses.length; i++) {
            int length = lengths[i];
            if (length == 0) {
                continue;
            }
            long address = addresses[i];
            MemorySegment source = d.mrs.values().stream().filter(mr -> !mr.isDestroyed() && mr.covers(address, length))
                    .findFirst().map(mr -> mr.slice(address, length))
                    .orElseGet(() -> MemorySegment.ofAddress(address).reinterpret(length));
            MemorySegment.copy(source, ValueLayout.JAVA_BYTE, 0, data, offset, length);
            offset += length;
        }
        return data;
    }

    /**
     * {@code ibv_post_recv}: EINVAL in RESET (rdma-core's rxe checks {@code qp->state}), for a QP
     * receiving through an SRQ, and for XRC QPs (no receive queue). Posted in ERR it is queued and, on
     * rxe 6.1, never flushed (see {@link Driver#flushesReceivesPostedInError()}).
     */
    void postRecv(QpHandle qp, RecvWr request) {
        SimQp h = uverbs.own(qp, SimQp.class);
        SimRecvWr wr = uverbs.ownRequest(request);
        uverbs.call("ibv_post_recv", h);
        uverbs.onFabric(() -> {
            h.requireUsable();
            h.device.requireAlive("ibv_post_recv", h.describe());
            postOneRecv(h, wr);
        });
    }

    /** {@code ibv_post_recv} of a chain, walked as {@link #postSend(QpHandle, WorkRequestChain)} walks one. */
    void postRecv(QpHandle qp, WorkRequestChain<RecvWr> chain) {
        SimQp h = uverbs.own(qp, SimQp.class);
        SimWrChain<RecvWr> c = uverbs.ownChain(chain, SimRecvWr.class);
        uverbs.call("ibv_post_recv", h);
        uverbs.onFabric(() -> {
            h.requireUsable();
            h.device.requireAlive("ibv_post_recv", h.describe());
            walk(c, wr -> postOneRecv(h, (SimRecvWr) wr));
        });
    }

    /** {@code ibv_post_srq_recv} of a chain, for {@link SimSrqVerbs}. */
    static void walkReceives(SimWrChain<RecvWr> chain, Consumer<SimRecvWr> post) {
        walk(chain, wr -> post.accept((SimRecvWr) wr));
    }

    private void postOneRecv(SimQp h, SimRecvWr wr) {
        SimDevice d = h.device;
        String verb = "ibv_post_recv";
        KernelQp q = h.qp;
        if (q.type.isXrc()) {
            throw new VerbsException(verb, h.describe(), Errno.EINVAL, "XRC QPs have no receive queue; post to"
                    + " the XRC SRQ");
        }
        if (q.srq != null) {
            throw new VerbsException(verb, h.describe(), Errno.EINVAL, "this QP receives through "
                    + q.srq.describe() + "; post there (postSrqRecv)");
        }
        if (q.state == QpState.RESET) {
            throw new VerbsException(verb, h.describe(), Errno.EINVAL, "the QP is in RESET; move it to INIT first");
        }
        if (wr.sgeCount() > q.reported.maxRecvSge()) {
            throw new VerbsException(verb, h.describe(), Errno.EINVAL, wr.sgeCount() + " SGEs exceed max_recv_sge "
                    + q.reported.maxRecvSge());
        }
        if (q.recvQueue.size() >= q.recvSlots) {
            throw new VerbsException(verb, h.describe(), Errno.ENOMEM, "the receive queue is full ("
                    + q.recvSlots + " WRs posted and not consumed)");
        }
        q.recvQueue.addLast(PostedRecv.of(wr));
        if (q.state == QpState.ERR && d.driver().flushesReceivesPostedInError()) {
            fabric.flushReceive(q);
        }
        fabric.pumpStalled();
    }
}
