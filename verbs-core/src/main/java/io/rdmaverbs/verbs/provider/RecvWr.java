package io.rdmaverbs.verbs.provider;

/** A reusable receive work request in the provider's own format ({@code struct ibv_recv_wr} for the native one). */
public interface RecvWr extends WorkRequest {
}
