package io.rdmaverbs.verbs;

import java.util.Objects;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;

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
 */
public record QueuePairSpec(QpType type, CompletionQueue sendCq, @Nullable CompletionQueue recvCq,
        @Nullable SharedReceiveQueue srq, QpCapabilities capabilities, boolean signalAll) {

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
                capabilities, signalAll);
    }

    /** The same QP, every send completing ({@code true}) or only those asking to ({@code false}). */
    public QueuePairSpec withSignalAll(boolean all) {
        return new QueuePairSpec(type, sendCq, recvCq, srq, capabilities, all);
    }
}
