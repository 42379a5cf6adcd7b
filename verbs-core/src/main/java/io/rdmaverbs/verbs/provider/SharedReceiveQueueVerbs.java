package io.rdmaverbs.verbs.provider;

/**
 * Shared receive queues: {@code ibv_create_srq_ex(3)}, {@code ibv_post_srq_recv(3)}. Receive requests
 * come from {@link QueuePairVerbs#newRecvWr}, the same format a QP's receive queue takes. Failures and
 * handle checks as described on {@link VerbsProvider}.
 */
public interface SharedReceiveQueueVerbs {

    /** {@code ibv_create_srq_ex} (inline through {@code verbs_context}; basic SRQs use {@code ibv_create_srq}). */
    SrqHandle createSrq(ContextHandle context, SrqInitSpec spec);

    /**
     * {@code ibv_destroy_srq}; EBUSY while QPs use it. May run while {@link #postSrqRecv} runs on the same
     * SRQ in other threads, as {@link QueuePairVerbs#destroyQp} may with posts: those finish before the SRQ
     * is freed, later ones fail with {@link IllegalStateException}.
     */
    void destroySrq(SrqHandle srq);

    /** {@code ibv_post_srq_recv} (inline: {@code srq->context->ops.post_srq_recv}). */
    void postSrqRecv(SrqHandle srq, RecvWr request);

    /**
     * {@code ibv_post_srq_recv} of a chain from {@link QueuePairVerbs#newRecvChain} in one call.
     *
     * @throws io.rdmaverbs.verbs.error.PostFailedException naming the request that failed ({@code bad_wr})
     */
    void postSrqRecv(SrqHandle srq, WorkRequestChain<RecvWr> chain);
}
