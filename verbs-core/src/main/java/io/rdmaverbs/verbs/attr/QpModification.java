package io.rdmaverbs.verbs.attr;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * One {@code ibv_modify_qp} call: a target state and the attributes that transition needs, with the
 * mask computed from what was set. The factory methods give the attribute sets the IB spec (and the
 * kernel's {@code ib_modify_qp_is_ok}) requires for RESET→INIT→RTR→RTS of each QP type.
 */
public final class QpModification {

    private final EnumSet<QpAttributeMask> mask = EnumSet.noneOf(QpAttributeMask.class);
    private QpState state = QpState.RESET;
    private int pkeyIndex;
    private int port;
    private int qkey;
    private int accessFlags;
    private Mtu pathMtu = Mtu.MTU_1024;
    private int destQpNum;
    private int rqPsn;
    private int sqPsn;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int timeout;
    private int retryCount;
    private int rnrRetry;
    private @Nullable AddressVector addressVector;

    private QpModification() {
    }

    /** A modification to {@code target} with no other attribute yet. */
    public static QpModification to(QpState target) {
        QpModification m = new QpModification();
        m.state = target;
        m.mask.add(QpAttributeMask.STATE);
        return m;
    }

    /** RESET→INIT for RC/UC/XRC: pkey index, port and remote access flags. */
    public static QpModification init(int port, int pkeyIndex, Set<AccessFlag> access) {
        return to(QpState.INIT).port(port).pkeyIndex(pkeyIndex).accessFlags(access);
    }

    /** RESET→INIT for UD: pkey index, port and the Q_Key datagrams carry. */
    public static QpModification initDatagram(int port, int pkeyIndex, int qkey) {
        return to(QpState.INIT).port(port).pkeyIndex(pkeyIndex).qkey(qkey);
    }

    /**
     * INIT→RTR: for a connected QP the path, the remote QP number and PSN and the MTU, plus responder
     * resources where the type has a responder (RC, XRC receive); for UD the state alone.
     */
    public static QpModification readyToReceive(QpType type, AddressVector path, int remoteQpNum, int remotePsn,
            Mtu mtu) {
        if (type == QpType.UD) {
            return to(QpState.RTR);
        }
        QpModification m = to(QpState.RTR).addressVector(path).destQpNum(remoteQpNum).rqPsn(remotePsn).pathMtu(mtu);
        return type == QpType.RC || type == QpType.XRC_RECV ? m.maxDestRdAtomic(1).minRnrTimer(12) : m;
    }

    /**
     * RTR→RTS: the send PSN, plus timeout, retry counts and initiator depth where the type is a
     * reliable requester (RC, XRC send), the ACK timeout alone for an XRC receive QP.
     */
    public static QpModification readyToSend(QpType type, int localPsn) {
        QpModification m = to(QpState.RTS).sqPsn(localPsn);
        return switch (type) {
            case RC, XRC_SEND -> m.timeout(14).retryCount(7).rnrRetry(7).maxRdAtomic(1);
            case XRC_RECV -> m.timeout(14);
            case UC, UD -> m;
        };
    }

    public QpModification pkeyIndex(int v) {
        pkeyIndex = checkRange("pkeyIndex", v, 0, 0xffff);
        mask.add(QpAttributeMask.PKEY_INDEX);
        return this;
    }

    public QpModification port(int v) {
        port = checkRange("port", v, 1, 255);
        mask.add(QpAttributeMask.PORT);
        return this;
    }

    public QpModification qkey(int v) {
        qkey = v;
        mask.add(QpAttributeMask.QKEY);
        return this;
    }

    public QpModification accessFlags(Set<AccessFlag> flags) {
        accessFlags = AccessFlag.mask(flags);
        mask.add(QpAttributeMask.ACCESS_FLAGS);
        return this;
    }

    public QpModification pathMtu(Mtu v) {
        pathMtu = v;
        mask.add(QpAttributeMask.PATH_MTU);
        return this;
    }

    public QpModification destQpNum(int v) {
        destQpNum = checkRange("destQpNum", v, 0, 0xffffff);
        mask.add(QpAttributeMask.DEST_QPN);
        return this;
    }

    public QpModification rqPsn(int v) {
        rqPsn = checkRange("rqPsn", v, 0, 0xffffff);
        mask.add(QpAttributeMask.RQ_PSN);
        return this;
    }

    public QpModification sqPsn(int v) {
        sqPsn = checkRange("sqPsn", v, 0, 0xffffff);
        mask.add(QpAttributeMask.SQ_PSN);
        return this;
    }

    public QpModification maxRdAtomic(int v) {
        maxRdAtomic = checkRange("maxRdAtomic", v, 0, 255);
        mask.add(QpAttributeMask.MAX_QP_RD_ATOMIC);
        return this;
    }

    public QpModification maxDestRdAtomic(int v) {
        maxDestRdAtomic = checkRange("maxDestRdAtomic", v, 0, 255);
        mask.add(QpAttributeMask.MAX_DEST_RD_ATOMIC);
        return this;
    }

    public QpModification minRnrTimer(int v) {
        minRnrTimer = checkRange("minRnrTimer", v, 0, 31);
        mask.add(QpAttributeMask.MIN_RNR_TIMER);
        return this;
    }

    public QpModification timeout(int v) {
        timeout = checkRange("timeout", v, 0, 31);
        mask.add(QpAttributeMask.TIMEOUT);
        return this;
    }

    public QpModification retryCount(int v) {
        retryCount = checkRange("retryCount", v, 0, 7);
        mask.add(QpAttributeMask.RETRY_CNT);
        return this;
    }

    public QpModification rnrRetry(int v) {
        rnrRetry = checkRange("rnrRetry", v, 0, 7);
        mask.add(QpAttributeMask.RNR_RETRY);
        return this;
    }

    public QpModification addressVector(AddressVector v) {
        addressVector = v;
        mask.add(QpAttributeMask.AV);
        return this;
    }

    public Set<QpAttributeMask> mask() {
        return Collections.unmodifiableSet(mask);
    }

    public int maskBits() {
        return QpAttributeMask.mask(mask);
    }

    public boolean has(QpAttributeMask a) {
        return mask.contains(a);
    }

    public QpState state() {
        return state;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public int port() {
        return port;
    }

    public int qkey() {
        return qkey;
    }

    public int accessFlags() {
        return accessFlags;
    }

    public Mtu pathMtu() {
        return pathMtu;
    }

    public int destQpNum() {
        return destQpNum;
    }

    public int rqPsn() {
        return rqPsn;
    }

    public int sqPsn() {
        return sqPsn;
    }

    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    public int minRnrTimer() {
        return minRnrTimer;
    }

    public int timeout() {
        return timeout;
    }

    public int retryCount() {
        return retryCount;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    public @Nullable AddressVector addressVector() {
        return addressVector;
    }

    private static int checkRange(String name, int v, int min, int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", was " + v);
        }
        return v;
    }

    @Override
    public String toString() {
        return "QpModification[to " + state + ", mask " + mask + "]";
    }
}
