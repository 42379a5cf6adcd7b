package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.DeviceInfo;

/** A provider's handle on an open device context ({@code struct ibv_context}). */
public interface ContextHandle extends Handle {

    DeviceInfo device();

    /** {@code ibv_context.num_comp_vectors}. */
    int numCompVectors();
}
