package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_cq_init_attr_ex}: what {@code ibv_create_cq_ex} creates. No {@code comp_mask} bit is used. */
final class IbvCqInitAttrEx {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("cqe"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("cq_context"),
            ADDRESS.withName("channel"),
            U32.withName("comp_vector"),
            MemoryLayout.paddingLayout(4),
            U64.withName("wc_flags"),
            U32.withName("comp_mask"),
            U32.withName("flags"),
            ADDRESS.withName("parent_domain"))
            .withName("ibv_cq_init_attr_ex");

    static final Field.OfInt CQE = Field.ofInt(LAYOUT, "cqe");
    static final Field.OfAddress CHANNEL = Field.ofAddress(LAYOUT, "channel");
    static final Field.OfInt COMP_VECTOR = Field.ofInt(LAYOUT, "comp_vector");
    static final Field.OfLong WC_FLAGS = Field.ofLong(LAYOUT, "wc_flags");

    private IbvCqInitAttrEx() {
    }
}
