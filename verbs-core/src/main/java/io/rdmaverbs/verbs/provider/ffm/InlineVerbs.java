package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Downcalls.CRITICAL;
import static io.rdmaverbs.verbs.provider.ffm.Downcalls.ERRNO;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import io.rdmaverbs.verbs.error.Errno;

/**
 * The verbs {@code <infiniband/verbs.h>} defines {@code static inline}, ported line by line. They are
 * not in the library's symbol table: C callers compile them in, and so does this class.
 *
 * <p>Two kinds:
 * <ul>
 *   <li>Extended verbs ({@code ibv_open_xrcd}, {@code ibv_create_qp_ex}, ...) look their op up in
 *       {@code struct verbs_context} through {@link VerbsContext#op}, which does the container_of, ABI
 *       and size checks of {@code verbs_get_ctx_op}; a missing op fails with {@code EOPNOTSUPP}, as the
 *       header does.</li>
 *   <li>Data-path verbs ({@code ibv_poll_cq}, {@code ibv_post_send}, ...) call
 *       {@code obj->context->ops.op}. The caller reads that pointer once per object with
 *       {@link #contextOp} and passes it on every call.</li>
 * </ul>
 * Function pointers are called through address-less downcall handles, one per op.
 */
final class InlineVerbs {

    private InlineVerbs() {
    }

    // ---- ops of struct verbs_context ------------------------------------------------------------

    private static final class query_port {
        static final FunctionDescriptor DESC =
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, ERRNO);
    }

    private static final class open_xrcd {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, ERRNO);
    }

    private static final class close_xrcd {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, ERRNO);
    }

    private static final class create_qp_ex {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, ERRNO);
    }

    private static final class create_srq_ex {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, ERRNO);
    }

    private static final class create_cq_ex {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, ERRNO);
    }

    private static final class open_qp {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, ERRNO);
    }

    private static final class get_srq_num {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, ERRNO);
    }

    /** {@code ___ibv_query_port}: the context's op with our struct size, else the exported compat call. */
    static int ibv_query_port(MemorySegment state, MemorySegment context, byte port, MemorySegment portAttr) {
        MemorySegment op = VerbsContext.op(context, VerbsContext.QUERY_PORT);
        if (isNull(op)) {
            portAttr.fill((byte) 0);
            return Libibverbs.ibv_query_port(state, context, port, portAttr);
        }
        try {
            return (int) query_port.HANDLE.invokeExact(op, state, context, port, portAttr,
                    IbvPortAttr.LAYOUT.byteSize());
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    static MemorySegment ibv_open_xrcd(MemorySegment state, MemorySegment context, MemorySegment xrcdInitAttr) {
        MemorySegment op = VerbsContext.op(context, VerbsContext.OPEN_XRCD);
        if (isNull(op)) {
            CallState.errno(state, Errno.EOPNOTSUPP.number());
            return MemorySegment.NULL;
        }
        try {
            return (MemorySegment) open_xrcd.HANDLE.invokeExact(op, state, context, xrcdInitAttr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /**
     * The header calls {@code verbs_get_ctx(xrcd->context)->close_xrcd} unchecked (an XRCD exists only
     * where the op does); going through the same checks costs nothing and cannot jump to NULL.
     */
    static int ibv_close_xrcd(MemorySegment state, MemorySegment xrcd) {
        MemorySegment context = IbvXrcd.CONTEXT.get(xrcd.reinterpret(IbvXrcd.LAYOUT.byteSize()));
        MemorySegment op = VerbsContext.op(context, VerbsContext.CLOSE_XRCD);
        if (isNull(op)) {
            return Errno.EOPNOTSUPP.number();
        }
        try {
            return (int) close_xrcd.HANDLE.invokeExact(op, state, xrcd);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** A QP asking for nothing but a PD is an old-style QP: {@code ibv_create_qp} does it. */
    static MemorySegment ibv_create_qp_ex(MemorySegment state, MemorySegment context, MemorySegment qpInitAttrEx) {
        int mask = IbvQpInitAttrEx.COMP_MASK.get(qpInitAttrEx);
        if (mask == IbvQpInitAttrEx.IBV_QP_INIT_ATTR_PD) {
            return Libibverbs.ibv_create_qp(state, IbvQpInitAttrEx.PD.get(qpInitAttrEx), qpInitAttrEx);
        }
        MemorySegment op = VerbsContext.op(context, VerbsContext.CREATE_QP_EX);
        if (isNull(op)) {
            CallState.errno(state, Errno.EOPNOTSUPP.number());
            return MemorySegment.NULL;
        }
        try {
            return (MemorySegment) create_qp_ex.HANDLE.invokeExact(op, state, context, qpInitAttrEx);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** A basic SRQ with at most a PD and a type goes to {@code ibv_create_srq}. */
    static MemorySegment ibv_create_srq_ex(MemorySegment state, MemorySegment context,
            MemorySegment srqInitAttrEx) {
        int mask = IbvSrqInitAttrEx.COMP_MASK.get(srqInitAttrEx);
        if (isBasicSrq(mask, IbvSrqInitAttrEx.SRQ_TYPE.get(srqInitAttrEx))) {
            return Libibverbs.ibv_create_srq(state, IbvSrqInitAttrEx.PD.get(srqInitAttrEx), srqInitAttrEx);
        }
        MemorySegment op = VerbsContext.op(context, VerbsContext.CREATE_SRQ_EX);
        if (isNull(op)) {
            CallState.errno(state, Errno.EOPNOTSUPP.number());
            return MemorySegment.NULL;
        }
        try {
            return (MemorySegment) create_srq_ex.HANDLE.invokeExact(op, state, context, srqInitAttrEx);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** The shortcut condition of {@code ibv_create_srq_ex}. */
    static boolean isBasicSrq(int compMask, int srqType) {
        int pdAndType = IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_PD | IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_TYPE;
        return (compMask & ~pdAndType) == 0
                && (compMask & IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_PD) != 0
                && ((compMask & IbvSrqInitAttrEx.IBV_SRQ_INIT_ATTR_TYPE) == 0
                        || srqType == IbvSrqInitAttrEx.IBV_SRQT_BASIC);
    }

    /** {@code ibv_create_cq_ex}: the context's op, EOPNOTSUPP where the provider has none. */
    static MemorySegment ibv_create_cq_ex(MemorySegment state, MemorySegment context, MemorySegment cqInitAttrEx) {
        MemorySegment op = VerbsContext.op(context, VerbsContext.CREATE_CQ_EX);
        if (isNull(op)) {
            CallState.errno(state, Errno.EOPNOTSUPP.number());
            return MemorySegment.NULL;
        }
        try {
            return (MemorySegment) create_cq_ex.HANDLE.invokeExact(op, state, context, cqInitAttrEx);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** {@code ibv_open_qp} is static inline in rdma-core 44, dispatched like {@code ibv_open_xrcd}. */
    static MemorySegment ibv_open_qp(MemorySegment state, MemorySegment context, MemorySegment qpOpenAttr) {
        MemorySegment op = VerbsContext.op(context, VerbsContext.OPEN_QP);
        if (isNull(op)) {
            CallState.errno(state, Errno.EOPNOTSUPP.number());
            return MemorySegment.NULL;
        }
        try {
            return (MemorySegment) open_qp.HANDLE.invokeExact(op, state, context, qpOpenAttr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    static int ibv_get_srq_num(MemorySegment state, MemorySegment srq, MemorySegment srqNumOut) {
        MemorySegment context = IbvSrq.CONTEXT.get(srq.reinterpret(IbvSrq.LAYOUT.byteSize()));
        MemorySegment op = VerbsContext.op(context, VerbsContext.GET_SRQ_NUM);
        if (isNull(op)) {
            return Errno.EOPNOTSUPP.number();
        }
        try {
            return (int) get_srq_num.HANDLE.invokeExact(op, state, srq, srqNumOut);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    // ---- ops of struct ibv_context_ops (the data path) ------------------------------------------

    /**
     * {@code object->context->ops.<op>}: read once when a CQ, QP or SRQ is created, so that the data
     * path does not chase two pointers per call.
     *
     * @param object an {@code ibv_cq}, {@code ibv_qp} or {@code ibv_srq}
     * @param contextField its {@code context} member
     * @param op the op's member of {@code struct ibv_context_ops}
     */
    static MemorySegment contextOp(MemorySegment object, Field.OfAddress contextField, Field.OfAddress op) {
        MemorySegment context = contextField.get(object.reinterpret(contextField.end()));
        return op.get(context.reinterpret(IbvContext.LAYOUT.byteSize()), IbvContext.OPS);
    }

    /*
     * The data-path ops take their object and buffer pointers as C longs (POINTER): the caller passes
     * addresses it read once, under the CallGuard that keeps the object and the memory alive. A segment
     * argument would cost the linker a check and an unboxing per pointer on every call (about 1.2 ns each,
     * docs/performance.md "Pointers passed as longs"), and guard nothing here: the segments passed were
     * bare ones of the global scope. On the ABIs Platform admits (LP64 Linux, x86_64 SysV and AAPCS64) a
     * pointer and a long are passed alike, in the next general-purpose register. The op itself stays a
     * segment: an address-less downcall handle takes its target so.
     */
    private static final ValueLayout POINTER = JAVA_LONG;

    /** Returns a negative value on error, without errno. */
    private static final class poll_cq {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, POINTER, JAVA_INT, POINTER);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    /*
     * req_notify_cq, post_send, post_recv and post_srq_recv return the failure's errno value itself
     * (ibv_req_notify_cq(3), ibv_post_send(3), ibv_post_recv(3), ibv_post_srq_recv(3): "0 on success, or the
     * value of errno on failure"), so errno is not captured: the capture is a call into the JVM after every
     * downcall. rdma-core's providers agree (read at its master of 2026-12: bnxt_re, cxgb4, efa, erdma, hns,
     * irdma, mana, mlx4, mlx5, mthca, ocrdma, qedr, rxe, siw, vmw_pvrdma and the ibv_cmd_ fallbacks): 0, a
     * positive errno (rxe's post_send reads errno after its doorbell write() and returns it), or a negative
     * one (cxgb4, erdma, mana, qedr); none returns -1 and leaves the reason in errno. VerbChecks.returnedErrno reads
     * the value.
     */

    private static final class req_notify_cq {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, POINTER, JAVA_INT);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final class post_send {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, POINTER, POINTER, POINTER);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    /*
     * The same three ops as normal downcalls, for an extended CQ or a QP with send ops: there a batch or a
     * session holds the provider's lock across Java code (start_poll to end_poll, wr_start to wr_complete), and
     * poll_cq, post_send (rxe, mlx5) and req_notify_cq (irdma) take that lock. A thread waiting for a lock
     * inside a critical downcall never reaches a safepoint, while the lock's holder may be stopped at one.
     */

    private static final class poll_cq_contended {
        static final FunctionDescriptor DESC = poll_cq.DESC;
        static final MethodHandle HANDLE = Downcalls.pointer(DESC);
    }

    private static final class req_notify_cq_contended {
        static final FunctionDescriptor DESC = req_notify_cq.DESC;
        static final MethodHandle HANDLE = Downcalls.pointer(DESC);
    }

    private static final class post_send_contended {
        static final FunctionDescriptor DESC = post_send.DESC;
        static final MethodHandle HANDLE = Downcalls.pointer(DESC);
    }

    private static final class post_recv {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, POINTER, POINTER, POINTER);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final class post_srq_recv {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, POINTER, POINTER, POINTER);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    static int ibv_poll_cq(MemorySegment pollCq, long cq, int numEntries, long wc) {
        try {
            return (int) poll_cq.HANDLE.invokeExact(pollCq, cq, numEntries, wc);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    static int ibv_req_notify_cq(MemorySegment reqNotifyCq, long cq, int solicitedOnly) {
        try {
            return (int) req_notify_cq.HANDLE.invokeExact(reqNotifyCq, cq, solicitedOnly);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    static int ibv_post_send(MemorySegment postSend, long qp, long wr, long badWr) {
        try {
            return (int) post_send.HANDLE.invokeExact(postSend, qp, wr, badWr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** {@link #ibv_poll_cq} on an extended CQ, whose lock a batch may hold: not critical. */
    static int ibv_poll_cq_contended(MemorySegment pollCq, long cq, int numEntries, long wc) {
        try {
            return (int) poll_cq_contended.HANDLE.invokeExact(pollCq, cq, numEntries, wc);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** {@link #ibv_req_notify_cq} on an extended CQ, whose lock a batch may hold: not critical. */
    static int ibv_req_notify_cq_contended(MemorySegment reqNotifyCq, long cq, int solicitedOnly) {
        try {
            return (int) req_notify_cq_contended.HANDLE.invokeExact(reqNotifyCq, cq, solicitedOnly);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** {@link #ibv_post_send} on a QP with send ops, whose send queue's lock a session may hold: not critical. */
    static int ibv_post_send_contended(MemorySegment postSend, long qp, long wr, long badWr) {
        try {
            return (int) post_send_contended.HANDLE.invokeExact(postSend, qp, wr, badWr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    static int ibv_post_recv(MemorySegment postRecv, long qp, long wr, long badWr) {
        try {
            return (int) post_recv.HANDLE.invokeExact(postRecv, qp, wr, badWr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    static int ibv_post_srq_recv(MemorySegment postSrqRecv, long srq, long wr, long badWr) {
        try {
            return (int) post_srq_recv.HANDLE.invokeExact(postSrqRecv, srq, wr, badWr);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    static boolean isNull(MemorySegment pointer) {
        return pointer.address() == 0;
    }
}
