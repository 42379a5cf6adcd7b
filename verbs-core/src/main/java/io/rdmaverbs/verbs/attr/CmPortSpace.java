package io.rdmaverbs.verbs.attr;

/** {@code enum rdma_port_space} of {@code rdma_create_id(3)}: the port space and with it the QP type. */
public enum CmPortSpace {
    /** {@code RDMA_PS_TCP}: reliable, connected (RC) QPs. */
    TCP,
    /** {@code RDMA_PS_UDP}: unreliable datagram (UD) QPs. */
    UDP
}
