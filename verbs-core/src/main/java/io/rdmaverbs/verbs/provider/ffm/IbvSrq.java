package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.PTHREAD_COND_T;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.PTHREAD_MUTEX_T;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_srq}. */
final class IbvSrq {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("srq_context"),
            ADDRESS.withName("pd"),
            U32.withName("handle"),
            MemoryLayout.paddingLayout(4),
            PTHREAD_MUTEX_T.withName("mutex"),
            PTHREAD_COND_T.withName("cond"),
            U32.withName("events_completed"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_srq");

    static final Field.OfAddress CONTEXT = Field.ofAddress(LAYOUT, "context");

    private IbvSrq() {
    }
}
