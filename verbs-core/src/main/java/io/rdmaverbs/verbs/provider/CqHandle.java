package io.rdmaverbs.verbs.provider;

/** A provider's handle on a completion queue ({@code struct ibv_cq}). */
public interface CqHandle extends Handle {

    /** The actual number of entries ({@code cq->cqe}), at least what was asked for. */
    int capacity();
}
