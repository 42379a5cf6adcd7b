package io.rdmaverbs.verbs.provider;

/** A provider's handle on a shared receive queue ({@code struct ibv_srq}). */
public interface SrqHandle extends Handle {

    /** The XRC SRQ number remote XRC senders address ({@code ibv_get_srq_num}); 0 for a basic SRQ. */
    int srqNum();
}
