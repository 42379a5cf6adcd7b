package io.rdmaverbs.verbs;

import java.util.Objects;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;

import org.jspecify.annotations.Nullable;

/**
 * What {@link ProtectionDomain#createQueuePair(QueuePairSpec)} creates: the transport, the CQs, an
 * optional SRQ and the capabilities. (XRC receive QPs are created on their {@link XrcDomain}.)
 */
public record QueuePairSpec(QpType type, CompletionQueue sendCq, @Nullable CompletionQueue recvCq,
        @Nullable SharedReceiveQueue srq, QpCapabilities capabilities, boolean signalAll, @Nullable String name) {

    public QueuePairSpec {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(capabilities, "capabilities");
        if (type == QpType.XRC_RECV) {
            throw new IllegalArgumentException("XRC receive QPs belong to an XRC domain: use "
                    + "XrcDomain.createReceiveQueuePair()");
        }
        if (type != QpType.XRC_SEND && recvCq == null) {
            throw new IllegalArgumentException(type + " queue pairs need a receive CQ");
        }
        if (type == QpType.XRC_SEND && (recvCq != null || srq != null)) {
            throw new IllegalArgumentException("XRC send QPs have no receive queue: no receive CQ, no SRQ");
        }
    }

    /** A reliable-connected QP, every send signaled. */
    public static QueuePairSpec rc(CompletionQueue sendCq, CompletionQueue recvCq, QpCapabilities caps) {
        return new QueuePairSpec(QpType.RC, sendCq, recvCq, null, caps, true, null);
    }

    /** An unreliable-datagram QP, every send signaled. */
    public static QueuePairSpec ud(CompletionQueue sendCq, CompletionQueue recvCq, QpCapabilities caps) {
        return new QueuePairSpec(QpType.UD, sendCq, recvCq, null, caps, true, null);
    }

    /** An unreliable-connected QP, every send signaled. */
    public static QueuePairSpec uc(CompletionQueue sendCq, CompletionQueue recvCq, QpCapabilities caps) {
        return new QueuePairSpec(QpType.UC, sendCq, recvCq, null, caps, true, null);
    }

    /** An XRC initiator (send) QP: it sends into remote XRC SRQs by number. */
    public static QueuePairSpec xrcSend(CompletionQueue sendCq, QpCapabilities caps) {
        return new QueuePairSpec(QpType.XRC_SEND, sendCq, null, null, caps, true, null);
    }

    /** The same QP receiving through {@code sharedReceiveQueue}. */
    public QueuePairSpec withSrq(SharedReceiveQueue sharedReceiveQueue) {
        return new QueuePairSpec(type, sendCq, recvCq, sharedReceiveQueue, capabilities, signalAll, name);
    }

    /** Whether sends complete without asking ({@code sq_sig_all}). */
    public QueuePairSpec withSignalAll(boolean all) {
        return new QueuePairSpec(type, sendCq, recvCq, srq, capabilities, all, name);
    }

    public QueuePairSpec named(String newName) {
        return new QueuePairSpec(type, sendCq, recvCq, srq, capabilities, signalAll, newName);
    }
}
