package io.rdmaverbs.verbs.provider.simulated;

import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.Set;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.QpAttributeMask;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;

import org.jspecify.annotations.Nullable;

/**
 * The kernel's QP object. Usually one handle refers to it; an XRC receive QP belongs to its XRC domain
 * and every context that created or opened it holds a handle (a registration), and it lives until the
 * last registration is dropped. Guarded by the device lock; the fabric changes it with all locks held.
 */
final class KernelQp {

    final SimDevice device;
    final QpType type;
    final int qpNum;
    /** The context that created it: QP async events go there. */
    final SimContext owner;
    final @Nullable SimPd pd;
    final @Nullable SimCq sendCq;
    final @Nullable SimCq recvCq;
    final @Nullable SimSrq srq;
    final @Nullable KernelXrcd domain;
    final boolean signalAll;
    final QpCapabilities reported;
    final int sendSlots;
    final int recvSlots;
    final ArrayDeque<PostedSend> sendQueue = new ArrayDeque<>();
    final ArrayDeque<PostedRecv> recvQueue = new ArrayDeque<>();
    final Set<SimQp> handles = new LinkedHashSet<>();

    QpState state = QpState.RESET;
    int port;
    int pkeyIndex;
    int qkey;
    int accessFlags;
    Mtu pathMtu = Mtu.MTU_1024;
    int destQpNum;
    int rqPsn;
    int sqPsn;
    int timeout;
    int retryCount;
    int rnrRetry;
    int maxRdAtomic;
    int maxDestRdAtomic;
    int minRnrTimer;
    @Nullable AddressVector path;
    boolean destroyed;

    KernelQp(SimDevice device, QpType type, int qpNum, SimContext owner, @Nullable SimPd pd, @Nullable SimCq sendCq,
            @Nullable SimCq recvCq, @Nullable SimSrq srq, @Nullable KernelXrcd domain, boolean signalAll,
            QpCapabilities reported, int sendSlots, int recvSlots) {
        this.device = device;
        this.type = type;
        this.qpNum = qpNum;
        this.owner = owner;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.domain = domain;
        this.signalAll = signalAll;
        this.reported = reported;
        this.sendSlots = sendSlots;
        this.recvSlots = recvSlots;
    }

    /** Copies the attributes a (validated) modification carries. */
    void apply(QpModification m) {
        if (m.has(QpAttributeMask.PORT)) {
            port = m.port();
        }
        if (m.has(QpAttributeMask.PKEY_INDEX)) {
            pkeyIndex = m.pkeyIndex();
        }
        if (m.has(QpAttributeMask.QKEY)) {
            qkey = m.qkey();
        }
        if (m.has(QpAttributeMask.ACCESS_FLAGS)) {
            accessFlags = m.accessFlags();
        }
        if (m.has(QpAttributeMask.PATH_MTU)) {
            pathMtu = m.pathMtu();
        }
        if (m.has(QpAttributeMask.DEST_QPN)) {
            destQpNum = m.destQpNum();
        }
        if (m.has(QpAttributeMask.RQ_PSN)) {
            rqPsn = m.rqPsn();
        }
        if (m.has(QpAttributeMask.SQ_PSN)) {
            sqPsn = m.sqPsn();
        }
        if (m.has(QpAttributeMask.TIMEOUT)) {
            timeout = m.timeout();
        }
        if (m.has(QpAttributeMask.RETRY_CNT)) {
            retryCount = m.retryCount();
        }
        if (m.has(QpAttributeMask.RNR_RETRY)) {
            rnrRetry = m.rnrRetry();
        }
        if (m.has(QpAttributeMask.MAX_QP_RD_ATOMIC)) {
            maxRdAtomic = m.maxRdAtomic();
        }
        if (m.has(QpAttributeMask.MAX_DEST_RD_ATOMIC)) {
            maxDestRdAtomic = m.maxDestRdAtomic();
        }
        if (m.has(QpAttributeMask.MIN_RNR_TIMER)) {
            minRnrTimer = m.minRnrTimer();
        }
        if (m.has(QpAttributeMask.AV)) {
            path = m.addressVector();
        }
        if (m.has(QpAttributeMask.STATE)) {
            state = m.state();
        }
    }

    /** Whether the responder side accepts packets (rxe's {@code resp.state == QP_STATE_READY}). */
    boolean canReceive() {
        return state == QpState.RTR || state == QpState.RTS || state == QpState.SQD;
    }

    boolean allows(AccessFlag flag) {
        return (accessFlags & flag.bit()) != 0;
    }

    /** The CQ receive completions go to: the XRC SRQ's CQ for an XRC receive QP. */
    @Nullable SimCq receiveCompletionQueue(@Nullable SimSrq viaSrq) {
        if (viaSrq != null && viaSrq.cq != null) {
            return viaSrq.cq;
        }
        return recvCq;
    }

    QpAttributes attributes() {
        QpCapabilities actual = new QpCapabilities(sendSlots, recvSlots, reported.maxSendSge(), reported.maxRecvSge(),
                reported.maxInlineData());
        return new QpAttributes(state, type, qpNum, port, pkeyIndex, qkey, pathMtu, destQpNum, rqPsn, sqPsn,
                accessFlags, actual);
    }
}
