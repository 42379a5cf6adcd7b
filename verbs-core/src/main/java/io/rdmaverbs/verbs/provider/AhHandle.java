package io.rdmaverbs.verbs.provider;

/** A provider's handle on a address handle (struct ibv_ah). */
public interface AhHandle extends Handle {
}
