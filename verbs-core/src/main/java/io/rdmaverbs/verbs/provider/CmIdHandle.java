package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.CmPortSpace;

/**
 * A provider's handle on a CM id ({@code struct rdma_cm_id}): made by {@link ConnectionVerbs#createId},
 * or by the CM itself for a connection request ({@link CmEventHandle#id()} of a CONNECT_REQUEST), which
 * the application then owns and must accept, reject or destroy.
 */
public interface CmIdHandle extends Handle {

    /** The event channel the id reports on ({@code id->channel}). */
    CmChannelHandle channel();

    CmPortSpace portSpace();
}
