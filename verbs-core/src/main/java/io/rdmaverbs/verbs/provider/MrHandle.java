package io.rdmaverbs.verbs.provider;

/** A provider's handle on a registered memory region ({@code struct ibv_mr}). */
public interface MrHandle extends Handle {

    int lkey();

    int rkey();

    long address();

    long length();
}
