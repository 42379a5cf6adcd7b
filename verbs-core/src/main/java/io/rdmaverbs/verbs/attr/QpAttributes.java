package io.rdmaverbs.verbs.attr;

/** What {@code ibv_query_qp} reports about a QP. */
public record QpAttributes(QpState state, QpType type, int qpNum, int port, int pkeyIndex, int qkey, Mtu pathMtu,
        int destQpNum, int rqPsn, int sqPsn, int accessFlags, QpCapabilities capabilities) {
}
