package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.SIZE_T;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct verbs_context}: the extended context every rdma-core provider allocates around the
 * {@code struct ibv_context} it hands out. It "grows up": new ops are added at the front, so a
 * context from an older library has a smaller {@code sz} and lacks the first ops. Only the ops this
 * binding calls are named; the other pointer slots between {@code query_port} and {@code open_qp} (24
 * ops before {@code create_cq_ex}; after it the {@code priv} pointer and 5 more, two of them ABI
 * placeholders) are padding.
 */
final class VerbsContext {

    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code (void *) UINTPTR_MAX} in {@code ibv_context.abi_compat}. */
    static final long VERBS_ABI_IS_EXTENDED = -1L;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("query_port"),
            MemoryLayout.paddingLayout(24 * 8),
            ADDRESS.withName("create_cq_ex"),
            MemoryLayout.paddingLayout(6 * 8),
            ADDRESS.withName("open_qp"),
            ADDRESS.withName("create_qp_ex"),
            ADDRESS.withName("get_srq_num"),
            ADDRESS.withName("create_srq_ex"),
            ADDRESS.withName("open_xrcd"),
            ADDRESS.withName("close_xrcd"),
            U64.withName("_ABI_placeholder3"),
            SIZE_T.withName("sz"),
            IbvContext.LAYOUT.withName("context"))
            .withName("verbs_context");

    static final Field.OfAddress QUERY_PORT = Field.ofAddress(LAYOUT, "query_port");
    static final Field.OfAddress CREATE_CQ_EX = Field.ofAddress(LAYOUT, "create_cq_ex");
    static final Field.OfAddress OPEN_QP = Field.ofAddress(LAYOUT, "open_qp");
    static final Field.OfAddress CREATE_QP_EX = Field.ofAddress(LAYOUT, "create_qp_ex");
    static final Field.OfAddress GET_SRQ_NUM = Field.ofAddress(LAYOUT, "get_srq_num");
    static final Field.OfAddress CREATE_SRQ_EX = Field.ofAddress(LAYOUT, "create_srq_ex");
    static final Field.OfAddress OPEN_XRCD = Field.ofAddress(LAYOUT, "open_xrcd");
    static final Field.OfAddress CLOSE_XRCD = Field.ofAddress(LAYOUT, "close_xrcd");
    static final Field.OfLong SZ = Field.ofLong(LAYOUT, "sz");
    static final long CONTEXT = Field.offset(LAYOUT, "context");

    private VerbsContext() {
    }

    /**
     * {@code verbs_get_ctx_op(ctx, op)} of {@code verbs.h}, the one place every static-inline verb goes
     * through: step back from the {@code ibv_context} to its enclosing {@code verbs_context}
     * (container_of), and hand out the op only if the context is extended, large enough to have the
     * op, and the provider filled it in.
     *
     * @param context an {@code struct ibv_context *}
     * @param op the op's member of {@code struct verbs_context} (one of the constants above)
     * @return the op's function pointer, or {@link MemorySegment#NULL} where {@code verbs.h} would
     *     fail the verb with {@code EOPNOTSUPP}
     */
    static MemorySegment op(MemorySegment context, Field.OfAddress op) {
        MemorySegment ctx = context.reinterpret(IbvContext.LAYOUT.byteSize());
        if (IbvContext.ABI_COMPAT.get(ctx).address() != VERBS_ABI_IS_EXTENDED) {
            return MemorySegment.NULL;
        }
        MemorySegment vctx = MemorySegment.ofAddress(context.address() - CONTEXT).reinterpret(LAYOUT.byteSize());
        long sz = SZ.get(vctx);
        if (Long.compareUnsigned(sz, LAYOUT.byteSize() - op.offset()) < 0) {
            return MemorySegment.NULL;
        }
        return op.get(vctx);
    }
}
