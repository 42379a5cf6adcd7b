package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.SIZE_T;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct verbs_context}: the extended context every rdma-core provider allocates around the
 * {@code struct ibv_context} it hands out. It "grows up": new ops are added at the front, so a
 * context from an older library has a smaller {@code sz} and lacks the first ops. Only the ops this
 * binding calls are named; the other 33 are padding.
 */
final class VerbsContext {

    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code (void *) UINTPTR_MAX} in {@code ibv_context.abi_compat}. */
    static final long VERBS_ABI_IS_EXTENDED = -1L;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("query_port"),
            MemoryLayout.paddingLayout(31 * 8),
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

    static final long QUERY_PORT = offset(LAYOUT, "query_port");
    static final long OPEN_QP = offset(LAYOUT, "open_qp");
    static final long CREATE_QP_EX = offset(LAYOUT, "create_qp_ex");
    static final long GET_SRQ_NUM = offset(LAYOUT, "get_srq_num");
    static final long CREATE_SRQ_EX = offset(LAYOUT, "create_srq_ex");
    static final long OPEN_XRCD = offset(LAYOUT, "open_xrcd");
    static final long CLOSE_XRCD = offset(LAYOUT, "close_xrcd");
    static final long SZ = offset(LAYOUT, "sz");
    static final long CONTEXT = offset(LAYOUT, "context");

    private VerbsContext() {
    }

    /**
     * {@code verbs_get_ctx_op(ctx, op)} of {@code verbs.h}, the one place every static-inline verb goes
     * through: step back from the {@code ibv_context} to its enclosing {@code verbs_context}
     * (container_of), and hand out the op only if the context is extended, large enough to have the
     * op, and the provider filled it in.
     *
     * @param context an {@code struct ibv_context *}
     * @param op the op's offset in {@code struct verbs_context} (one of the constants above)
     * @return the op's function pointer, or {@link MemorySegment#NULL} where {@code verbs.h} would
     *     fail the verb with {@code EOPNOTSUPP}
     */
    static MemorySegment op(MemorySegment context, long op) {
        MemorySegment ctx = context.reinterpret(IbvContext.LAYOUT.byteSize());
        if (ctx.get(ADDRESS, IbvContext.ABI_COMPAT).address() != VERBS_ABI_IS_EXTENDED) {
            return MemorySegment.NULL;
        }
        MemorySegment vctx = MemorySegment.ofAddress(context.address() - CONTEXT).reinterpret(LAYOUT.byteSize());
        long sz = vctx.get(SIZE_T, SZ);
        if (Long.compareUnsigned(sz, LAYOUT.byteSize() - op) < 0) {
            return MemorySegment.NULL;
        }
        return vctx.get(ADDRESS, op);
    }
}
