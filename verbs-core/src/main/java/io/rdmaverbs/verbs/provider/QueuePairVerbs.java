package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpType;

/**
 * Queue pairs: {@code ibv_create_qp_ex(3)}, {@code ibv_open_qp(3)}, {@code ibv_modify_qp(3)},
 * {@code ibv_query_qp(3)}, {@code ibv_post_send(3)}, {@code ibv_post_recv(3)},
 * {@code ibv_attach_mcast(3)}, and the work requests posting takes. Posting is on the data path: a
 * caller that posts keeps this object rather than asking the provider per post. Failures and handle
 * checks as described on {@link VerbsProvider}.
 */
public interface QueuePairVerbs {

    /** {@code ibv_create_qp_ex} (inline through {@code verbs_context}). */
    QpHandle createQp(ContextHandle context, QpInitSpec spec);

    /**
     * {@code ibv_open_qp}: a handle (and a registration of this process) on an existing XRC receive QP
     * of {@code xrcd}; EINVAL when no such QP exists in that domain.
     */
    QpHandle openQp(ContextHandle context, XrcdHandle xrcd, int qpNum, QpType type);

    /**
     * {@code ibv_destroy_qp}; EBUSY while attached to a multicast group. May run while {@link #postSend}
     * or {@link #postRecv} (of one request or a chain) run on the same QP in other threads, or a
     * {@link QpExOps} session is open on it, as {@link CompletionVerbs#destroyCq} may with polls: those
     * posts, and the session up to its {@code wrComplete} or {@code wrAbort}, finish before the QP is
     * freed; later ones fail with {@link IllegalStateException}. On the thread that holds a session of the
     * QP it is refused with {@link IllegalStateException}, changing nothing.
     */
    void destroyQp(QpHandle qp);

    /** {@code ibv_modify_qp}. */
    void modifyQp(QpHandle qp, QpModification modification);

    /** {@code ibv_query_qp}. */
    QpAttributes queryQp(QpHandle qp);

    /** {@code ibv_post_send} (inline: {@code qp->context->ops.post_send}). */
    void postSend(QpHandle qp, SendWr request);

    /** {@code ibv_post_recv} (inline: {@code qp->context->ops.post_recv}). */
    void postRecv(QpHandle qp, RecvWr request);

    /** A send request in this provider's format with room for {@code maxSge} entries. */
    SendWr newSendWr(int maxSge);

    /**
     * A receive request in this provider's format with room for {@code maxSge} entries, for
     * {@link #postRecv} and {@link SharedReceiveQueueVerbs#postSrqRecv} alike.
     */
    RecvWr newRecvWr(int maxSge);

    /**
     * {@code ibv_post_send} of the chain's {@link WorkRequestChain#length() length} requests in one call.
     *
     * @throws io.rdmaverbs.verbs.error.PostFailedException naming the request that failed ({@code bad_wr}):
     *     the ones before it were posted, it and the rest were not
     */
    void postSend(QpHandle qp, WorkRequestChain<SendWr> chain);

    /** {@code ibv_post_recv} of a chain, failing as {@link #postSend(QpHandle, WorkRequestChain)} does. */
    void postRecv(QpHandle qp, WorkRequestChain<RecvWr> chain);

    /** A chain of {@code capacity} send requests, each with room for {@code maxSge} entries. */
    WorkRequestChain<SendWr> newSendChain(int capacity, int maxSge);

    /** A chain of {@code capacity} receive requests, for QPs and SRQs alike. */
    WorkRequestChain<RecvWr> newRecvChain(int capacity, int maxSge);

    /**
     * The new post API of a QP created with {@link QpInitSpec#sendOpsFlags()}, the same object every time.
     *
     * @throws IllegalArgumentException for a QP created without send ops
     */
    QpExOps qpExOps(QpHandle qp);

    /** {@code ibv_attach_mcast}. */
    void attachMcast(QpHandle qp, Gid gid, int lid);

    /** {@code ibv_detach_mcast}. */
    void detachMcast(QpHandle qp, Gid gid, int lid);
}
