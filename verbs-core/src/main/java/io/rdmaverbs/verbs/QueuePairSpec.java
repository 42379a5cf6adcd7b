package io.rdmaverbs.verbs;

import java.util.Objects;
import java.util.Set;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendOpcode;

import org.jspecify.annotations.Nullable;

/**
 * What {@link ProtectionDomain#createQueuePair(QueuePairSpec)} creates ({@code ibv_create_qp_ex(3)}):
 * the transport, the CQs, an optional SRQ and the capabilities. (XRC receive QPs are created on their
 * {@link XrcDomain}.) The device's bounds ({@code max_qp_wr}, {@code max_sge}) are checked when the QP
 * is created.
 *
 * <pre>{@code
 * pd.createQueuePair(QueuePairSpec.rc(cq, cq, QpCapabilities.of(64, 64)).withSrq(srq), "qp");
 * }</pre>
 *
 * @param type the transport; not {@link QpType#XRC_RECV}
 * @param sendCq where send completions go
 * @param recvCq where receive completions go; {@code null} only for an XRC send QP, which has no
 *        receive queue
 * @param srq the basic SRQ the QP receives through instead of a receive queue of its own, or {@code null}
 * @param capabilities the work requests and scatter/gather entries asked for
 * @param signalAll whether every send completes ({@code sq_sig_all}) or only those asking to
 * @param sendOps the operations of the new post API ({@code ibv_wr_post(3)}, {@link QueuePair#newWorkRequestBuilder(int)})
 *        the QP is created for ({@code IBV_QP_INIT_ATTR_SEND_OPS_FLAGS}); empty for {@code ibv_post_send} only
 */
public record QueuePairSpec(QpType type, CompletionQueue sendCq, @Nullable CompletionQueue recvCq,
        @Nullable SharedReceiveQueue srq, QpCapabilities capabilities, boolean signalAll, Set<SendOpcode> sendOps) {

    /** Refuses a missing CQ or capabilities, and receive settings that do not fit the type, naming the field. */
    public QueuePairSpec {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(capabilities, "capabilities");
        if (type == QpType.XRC_RECV) {
            throw new IllegalArgumentException("type XRC_RECV: XRC receive QPs belong to an XRC domain, use "
                    + "XrcDomain.createReceiveQueuePair()");
        }
        if (type != QpType.XRC_SEND && recvCq == null) {
            throw new IllegalArgumentException("recvCq is missing: " + type + " queue pairs need a receive CQ");
        }
        if (type == QpType.XRC_SEND && (recvCq != null || srq != null)) {
            throw new IllegalArgumentException((recvCq != null ? "recvCq" : "srq")
                    + " is set, but XRC send QPs have no receive queue: no receive CQ, no SRQ");
        }
        sendOps = Set.copyOf(Objects.requireNonNull(sendOps, "sendOps"));
    }

    /** A QP posted to with {@code ibv_post_send} only. */
    public QueuePairSpec(QpType type, CompletionQueue sendCq, @Nullable CompletionQueue recvCq,
            @Nullable SharedReceiveQueue srq, QpCapabilities capabilities, boolean signalAll) {
        this(type, sendCq, recvCq, srq, capabilities, signalAll, Set.of());
    }

    /** A reliable-connected QP, every send signaled. */
    public static QueuePairSpec rc(CompletionQueue sendCq, CompletionQueue recvCq, QpCapabilities caps) {
        return new QueuePairSpec(QpType.RC, sendCq, recvCq, null, caps, true);
    }

    /** An unreliable-datagram QP, every send signaled. */
    public static QueuePairSpec ud(CompletionQueue sendCq, CompletionQueue recvCq, QpCapabilities caps) {
        return new QueuePairSpec(QpType.UD, sendCq, recvCq, null, caps, true);
    }

    /** An unreliable-connected QP, every send signaled. */
    public static QueuePairSpec uc(CompletionQueue sendCq, CompletionQueue recvCq, QpCapabilities caps) {
        return new QueuePairSpec(QpType.UC, sendCq, recvCq, null, caps, true);
    }

    /** An XRC initiator (send) QP, every send signaled: it sends into remote XRC SRQs by number. */
    public static QueuePairSpec xrcSend(CompletionQueue sendCq, QpCapabilities caps) {
        return new QueuePairSpec(QpType.XRC_SEND, sendCq, null, null, caps, true);
    }

    /** The same QP receiving through {@code sharedReceiveQueue}. */
    public QueuePairSpec withSrq(SharedReceiveQueue sharedReceiveQueue) {
        return new QueuePairSpec(type, sendCq, recvCq, Objects.requireNonNull(sharedReceiveQueue, "srq"),
                capabilities, signalAll, sendOps);
    }

    /** The same QP, every send completing ({@code true}) or only those asking to ({@code false}). */
    public QueuePairSpec withSignalAll(boolean all) {
        return new QueuePairSpec(type, sendCq, recvCq, srq, capabilities, all, sendOps);
    }

    /**
     * The same QP created for the new post API ({@code ibv_wr_post(3)}) with {@code ops}: only these
     * operations can be built with {@link QueuePair#newWorkRequestBuilder(int)}. A provider refuses
     * operations its transport cannot do (rxe: {@code EOPNOTSUPP} for RDMA or atomics on UD).
     */
    public QueuePairSpec withSendOps(Set<SendOpcode> ops) {
        if (ops.isEmpty()) {
            throw new IllegalArgumentException("name at least one operation for the new post API");
        }
        return new QueuePairSpec(type, sendCq, recvCq, srq, capabilities, signalAll, ops);
    }

    /** {@link #withSendOps(Set)} of the given operations. */
    public QueuePairSpec withSendOps(SendOpcode... ops) {
        return withSendOps(Set.of(ops));
    }

    /** {@code send_ops_flags}: bit {@code 1 << opcode} per operation ({@code IBV_QP_EX_WITH_*}). */
    public long sendOpsFlags() {
        long flags = 0;
        for (SendOpcode op : sendOps) {
            flags |= 1L << op.value();
        }
        return flags;
    }
}
