package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.PTHREAD_COND_T;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.PTHREAD_MUTEX_T;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_cq}. */
final class IbvCq {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("cq_context"),
            U32.withName("handle"),
            C_INT.withName("cqe"),
            PTHREAD_MUTEX_T.withName("mutex"),
            PTHREAD_COND_T.withName("cond"),
            U32.withName("comp_events_completed"),
            U32.withName("async_events_completed"))
            .withName("ibv_cq");

    static final Field.OfAddress CONTEXT = Field.ofAddress(LAYOUT, "context");
    static final Field.OfInt CQE = Field.ofInt(LAYOUT, "cqe");

    private IbvCq() {
    }
}
