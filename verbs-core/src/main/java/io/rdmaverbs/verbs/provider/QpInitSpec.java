package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_qp_init_attr_ex} in handle form. XRC_RECV QPs take an XRC domain and no PD,
 * CQs or SRQ; every other type takes a PD; a QP with an SRQ receives through it.
 */
public record QpInitSpec(QpType type, @Nullable PdHandle pd, @Nullable XrcdHandle xrcd, @Nullable CqHandle sendCq,
        @Nullable CqHandle recvCq, @Nullable SrqHandle srq, QpCapabilities capabilities, boolean signalAll) {
}
