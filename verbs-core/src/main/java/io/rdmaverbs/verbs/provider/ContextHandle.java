package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.DeviceInfo;

/** A provider's handle on an open device context ({@code struct ibv_context}). */
public interface ContextHandle extends Handle {

    DeviceInfo device();

    /** {@code ibv_context.num_comp_vectors}. */
    int numCompVectors();

    /**
     * Whether the connection manager opened this context ({@code id->verbs} of
     * {@link ConnectionVerbs#context}): librdmacm owns it, so it must never be closed with
     * {@code ibv_close_device}.
     */
    default boolean ownedByConnectionManager() {
        return false;
    }
}
