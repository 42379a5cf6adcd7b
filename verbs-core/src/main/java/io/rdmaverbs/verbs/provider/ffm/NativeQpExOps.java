package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Downcalls.CRITICAL;
import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;

import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.QpExOps;

/**
 * The new post API's function pointers of one {@code struct ibv_qp_ex}, read once when the QP is
 * created, and called as {@code verbs.h}'s static-inline {@code ibv_wr_*} call them:
 * {@code qp->wr_send(qp)}. They write the send queue under the provider's lock and never block
 * ({@code ibv_wr_complete} rings the doorbell, a short system call on rxe, as {@code ibv_post_send}
 * does), so the downcalls are critical. A builder the provider left NULL is refused instead of called.
 *
 * <p>A session is one guarded call, from {@code wr_start} to {@code wr_complete} or {@code wr_abort} (every
 * builder in between writes the QP's send queue): {@code destroyQp} waits for an open session to end,
 * and a start after the destroy began is refused.
 */
final class NativeQpExOps implements QpExOps {

    /** {@code wr_start}, {@code wr_abort}, {@code wr_send}. */
    private static final class wr_void {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final class wr_complete {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    /** {@code wr_send_imm(qp, __be32)}, {@code wr_set_xrc_srqn(qp, uint32_t)}. */
    private static final class wr_u32 {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    /** {@code wr_rdma_read}, {@code wr_rdma_write}: {@code (qp, rkey, remote_addr)}. */
    private static final class wr_rdma {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    /** {@code wr_rdma_write_imm(qp, rkey, remote_addr, __be32)}, {@code wr_set_sge(qp, lkey, addr, length)}. */
    private static final class wr_u32_u64_u32 {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final class wr_atomic_fetch_add {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final class wr_atomic_cmp_swp {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG,
                JAVA_LONG);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final class wr_set_ud_addr {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, JAVA_INT);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    /** {@code wr_set_inline_data(qp, addr, size_t)}. */
    private static final class wr_set_inline_data {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final class wr_set_sge_list {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final NativeVerbsProvider provider;
    private final NativeQp qp;
    private final CallGuards.Sole session;
    private final MemorySegment qpEx;
    /** The {@code ibv_sge[]} {@code wr_set_sge_list} reads: written only inside a session, which the provider serializes. */
    private final MemorySegment sgeList;
    private final int maxSge;
    private final MemorySegment wrStart;
    private final MemorySegment wrComplete;
    private final MemorySegment wrAbort;
    private final MemorySegment wrSend;
    private final MemorySegment wrSendImm;
    private final MemorySegment wrRdmaWrite;
    private final MemorySegment wrRdmaWriteImm;
    private final MemorySegment wrRdmaRead;
    private final MemorySegment wrAtomicFetchAdd;
    private final MemorySegment wrAtomicCmpSwp;
    private final MemorySegment wrSetSge;
    private final MemorySegment wrSetSgeList;
    private final MemorySegment wrSetUdAddr;
    private final MemorySegment wrSetXrcSrqn;
    private final MemorySegment wrSetInlineData;

    NativeQpExOps(NativeVerbsProvider provider, NativeQp qp, MemorySegment qpEx, int maxSge) {
        this.provider = provider;
        this.qp = qp;
        this.session = new CallGuards.Sole(qp, qp.calls());
        this.qpEx = qpEx.reinterpret(IbvQpEx.LAYOUT.byteSize());
        this.maxSge = Math.max(1, maxSge);
        this.sgeList = Arena.ofAuto().allocate(IbvSge.SIZE * this.maxSge, 8);
        MemorySegment s = this.qpEx;
        this.wrStart = IbvQpEx.WR_START.get(s);
        this.wrComplete = IbvQpEx.WR_COMPLETE.get(s);
        this.wrAbort = IbvQpEx.WR_ABORT.get(s);
        this.wrSend = IbvQpEx.WR_SEND.get(s);
        this.wrSendImm = IbvQpEx.WR_SEND_IMM.get(s);
        this.wrRdmaWrite = IbvQpEx.WR_RDMA_WRITE.get(s);
        this.wrRdmaWriteImm = IbvQpEx.WR_RDMA_WRITE_IMM.get(s);
        this.wrRdmaRead = IbvQpEx.WR_RDMA_READ.get(s);
        this.wrAtomicFetchAdd = IbvQpEx.WR_ATOMIC_FETCH_ADD.get(s);
        this.wrAtomicCmpSwp = IbvQpEx.WR_ATOMIC_CMP_SWP.get(s);
        this.wrSetSge = IbvQpEx.WR_SET_SGE.get(s);
        this.wrSetSgeList = IbvQpEx.WR_SET_SGE_LIST.get(s);
        this.wrSetUdAddr = IbvQpEx.WR_SET_UD_ADDR.get(s);
        this.wrSetXrcSrqn = IbvQpEx.WR_SET_XRC_SRQN.get(s);
        this.wrSetInlineData = IbvQpEx.WR_SET_INLINE_DATA.get(s);
        if (isNull(wrStart) || isNull(wrComplete) || isNull(wrAbort)) {
            throw new IllegalStateException(qp.describe() + ": the provider created a QP with send ops but without "
                    + "wr_start, wr_complete and wr_abort");
        }
    }

    @Override
    public void wrStart() {
        session.enter();
        try {
            call(wrStart, "wr_start");
        } catch (RuntimeException e) {
            session.exit();
            throw e;
        }
    }

    @Override
    public int wrComplete() {
        try {
            return (int) wr_complete.HANDLE.invokeExact(wrComplete, qpEx);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        } finally {
            session.exit();
        }
    }

    @Override
    public void wrAbort() {
        try {
            call(wrAbort, "wr_abort");
        } finally {
            session.exit();
        }
    }

    @Override
    public void wrId(long wrId) {
        IbvQpEx.WR_ID.set(qpEx, wrId);
    }

    @Override
    public void wrFlags(int flags) {
        IbvQpEx.WR_FLAGS.set(qpEx, flags);
    }

    @Override
    public void send() {
        call(wrSend, "wr_send");
    }

    @Override
    public void sendImm(int imm) {
        u32(wrSendImm, "wr_send_imm", htonl(imm));
    }

    @Override
    public void rdmaWrite(int rkey, long remoteAddress) {
        rdma(wrRdmaWrite, "wr_rdma_write", rkey, remoteAddress);
    }

    @Override
    public void rdmaWriteImm(int rkey, long remoteAddress, int imm) {
        u32u64u32(wrRdmaWriteImm, "wr_rdma_write_imm", rkey, remoteAddress, htonl(imm));
    }

    @Override
    public void rdmaRead(int rkey, long remoteAddress) {
        rdma(wrRdmaRead, "wr_rdma_read", rkey, remoteAddress);
    }

    @Override
    public void atomicFetchAdd(int rkey, long remoteAddress, long add) {
        require(wrAtomicFetchAdd, "wr_atomic_fetch_add");
        try {
            wr_atomic_fetch_add.HANDLE.invokeExact(wrAtomicFetchAdd, qpEx, rkey, remoteAddress, add);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    @Override
    public void atomicCmpSwp(int rkey, long remoteAddress, long compare, long swap) {
        require(wrAtomicCmpSwp, "wr_atomic_cmp_swp");
        try {
            wr_atomic_cmp_swp.HANDLE.invokeExact(wrAtomicCmpSwp, qpEx, rkey, remoteAddress, compare, swap);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    @Override
    public void setSge(int lkey, long address, int length) {
        u32u64u32(wrSetSge, "wr_set_sge", lkey, address, length);
    }

    @Override
    public void setSgeList(int count, long[] addresses, int[] lengths, int[] lkeys) {
        require(wrSetSgeList, "wr_set_sge_list");
        if (count < 0 || count > maxSge) {
            throw new IllegalArgumentException("an SGE list of " + count + " entries on a QP of max_send_sge " + maxSge);
        }
        for (int i = 0; i < count; i++) {
            long at = i * IbvSge.SIZE;
            IbvSge.ADDR.set(sgeList, at, addresses[i]);
            IbvSge.LENGTH.set(sgeList, at, lengths[i]);
            IbvSge.LKEY.set(sgeList, at, lkeys[i]);
        }
        try {
            wr_set_sge_list.HANDLE.invokeExact(wrSetSgeList, qpEx, (long) count, sgeList);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    @Override
    public void setUdAddr(AhHandle ah, int remoteQpn, int remoteQkey) {
        require(wrSetUdAddr, "wr_set_ud_addr");
        NativeAh a = provider.live(ah, NativeAh.class);
        try {
            wr_set_ud_addr.HANDLE.invokeExact(wrSetUdAddr, qpEx, a.pointer(), remoteQpn, remoteQkey);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    @Override
    public void setXrcSrqn(int remoteSrqn) {
        u32(wrSetXrcSrqn, "wr_set_xrc_srqn", remoteSrqn);
    }

    @Override
    public void setInlineData(long address, int length) {
        require(wrSetInlineData, "wr_set_inline_data");
        try {
            wr_set_inline_data.HANDLE.invokeExact(wrSetInlineData, qpEx, MemorySegment.ofAddress(address),
                    Integer.toUnsignedLong(length));
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private static int htonl(int value) {
        return LITTLE_ENDIAN ? Integer.reverseBytes(value) : value;
    }

    private void call(MemorySegment function, String member) {
        require(function, member);
        try {
            wr_void.HANDLE.invokeExact(function, qpEx);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private void u32(MemorySegment function, String member, int value) {
        require(function, member);
        try {
            wr_u32.HANDLE.invokeExact(function, qpEx, value);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private void rdma(MemorySegment function, String member, int rkey, long remoteAddress) {
        require(function, member);
        try {
            wr_rdma.HANDLE.invokeExact(function, qpEx, rkey, remoteAddress);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private void u32u64u32(MemorySegment function, String member, int a, long b, int c) {
        require(function, member);
        try {
            wr_u32_u64_u32.HANDLE.invokeExact(function, qpEx, a, b, c);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private void require(MemorySegment function, String member) {
        if (isNull(function)) {
            throw new IllegalStateException(qp.describe() + " has no " + member + " (NULL in its ibv_qp_ex): the "
                    + "operation was not in send_ops_flags at create, or the provider lacks it");
        }
    }
}
