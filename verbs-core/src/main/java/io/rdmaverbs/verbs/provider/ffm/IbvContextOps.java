package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_context_ops}: 32 function pointers, of which the data-path verbs that
 * {@code verbs.h} inlines ({@code ibv_poll_cq}, {@code ibv_post_send}...) call five. The others
 * are {@code _compat_*} slots no one may call, kept as padding.
 */
final class IbvContextOps {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.paddingLayout(11 * 8),
            ADDRESS.withName("poll_cq"),
            ADDRESS.withName("req_notify_cq"),
            MemoryLayout.paddingLayout(7 * 8),
            ADDRESS.withName("post_srq_recv"),
            MemoryLayout.paddingLayout(4 * 8),
            ADDRESS.withName("post_send"),
            ADDRESS.withName("post_recv"),
            MemoryLayout.paddingLayout(5 * 8))
            .withName("ibv_context_ops");

    static final Field.OfAddress POLL_CQ = Field.ofAddress(LAYOUT, "poll_cq");
    static final Field.OfAddress REQ_NOTIFY_CQ = Field.ofAddress(LAYOUT, "req_notify_cq");
    static final Field.OfAddress POST_SRQ_RECV = Field.ofAddress(LAYOUT, "post_srq_recv");
    static final Field.OfAddress POST_SEND = Field.ofAddress(LAYOUT, "post_send");
    static final Field.OfAddress POST_RECV = Field.ofAddress(LAYOUT, "post_recv");

    private IbvContextOps() {
    }
}
