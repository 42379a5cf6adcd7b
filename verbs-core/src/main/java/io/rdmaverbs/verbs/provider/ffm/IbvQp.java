package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.PTHREAD_COND_T;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.PTHREAD_MUTEX_T;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp}. */
final class IbvQp {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            U32.withName("handle"),
            U32.withName("qp_num"),
            C_ENUM.withName("state"),
            C_ENUM.withName("qp_type"),
            PTHREAD_MUTEX_T.withName("mutex"),
            PTHREAD_COND_T.withName("cond"),
            U32.withName("events_completed"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_qp");

    static final Field.OfAddress CONTEXT = Field.ofAddress(LAYOUT, "context");
    static final Field.OfInt QP_NUM = Field.ofInt(LAYOUT, "qp_num");

    private IbvQp() {
    }
}
