package io.rdmaverbs.verbs.provider.simulated;

/** The kinds of verbs objects the simulated kernel accounts for, as {@code rdma resource show} names them. */
public enum KernelObjectKind {
    CONTEXT("ibv_context"), PD("ibv_pd"), XRCD("ibv_xrcd"), COMP_CHANNEL("ibv_comp_channel"), CQ("ibv_cq"),
    SRQ("ibv_srq"), QP("ibv_qp"), MR("ibv_mr"), AH("ibv_ah");

    private final String verbsName;

    KernelObjectKind(String verbsName) {
        this.verbsName = verbsName;
    }

    /** The libibverbs struct name, e.g. {@code ibv_pd}. */
    public String verbsName() {
        return verbsName;
    }
}
