package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_qp_init_attr_ex} in handle form. XRC_RECV QPs take an XRC domain and no PD,
 * CQs or SRQ; every other type takes a PD; a QP with an SRQ receives through it.
 *
 * @param sendOpsFlags the {@code IBV_QP_EX_WITH_*} operations of the new post API ({@code ibv_wr_post(3)})
 *        the QP is created for ({@code IBV_QP_INIT_ATTR_SEND_OPS_FLAGS}); 0 for none, a QP posted to with
 *        {@code ibv_post_send} only
 */
public record QpInitSpec(QpType type, @Nullable PdHandle pd, @Nullable XrcdHandle xrcd, @Nullable CqHandle sendCq,
        @Nullable CqHandle recvCq, @Nullable SrqHandle srq, QpCapabilities capabilities, boolean signalAll,
        long sendOpsFlags) {

    /** A QP without the new post API. */
    public QpInitSpec(QpType type, @Nullable PdHandle pd, @Nullable XrcdHandle xrcd, @Nullable CqHandle sendCq,
            @Nullable CqHandle recvCq, @Nullable SrqHandle srq, QpCapabilities capabilities, boolean signalAll) {
        this(type, pd, xrcd, sendCq, recvCq, srq, capabilities, signalAll, 0);
    }
}
