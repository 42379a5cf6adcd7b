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
import io.rdmaverbs.verbs.provider.QueueLock;

/**
 * The new post API's function pointers of one {@code struct ibv_qp_ex}, read once when the QP is
 * created, and called as {@code verbs.h}'s static-inline {@code ibv_wr_*} call them:
 * {@code qp->wr_send(qp)}. A builder the provider left NULL is refused instead of called.
 *
 * <p>A session holds the QP's {@link QueueLock} from {@code wr_start} to {@code wr_complete} or
 * {@code wr_abort}, as the provider holds its send queue's lock that long (rxe and mlx5 take a spinlock in
 * {@code wr_start}): every builder and setter in between, and the end, is refused on any other thread;
 * another thread's start waits in Java for the end; {@code destroyQp} waits for an open session to end, and a
 * start after the destroy began is refused. {@code wr_start} takes the lock, so it is a normal downcall, not
 * {@code critical} (see {@link NativeCqExPoller}); the builders and the end are the holder's and take no lock
 * that is held across Java code ({@code wr_complete} rings the doorbell, a short system call on rxe, and
 * takes mlx5's BlueFlame lock for that moment only), so they stay critical.
 */
final class NativeQpExOps implements QpExOps {

    /** Takes the send queue's lock: never critical. */
    private static final class wr_start {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC);
    }

    /** {@code wr_abort}, {@code wr_send}. */
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
    private final QueueLock session;
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
        this.session = new QueueLock(qp, QueueLock.Kind.SESSION);
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
        qp.calls().add(session);
    }

    /** The send queue's lock as sessions hold it: {@code post_send} checks it too. */
    QueueLock session() {
        return session;
    }

    /**
     * Every failure after the lock is taken lets it go, an {@code Error} too (issue 20: an {@code Error} left
     * the session held, and every later destroy of the QP waited forever).
     */
    @Override
    public void wrStart() {
        if (!session.take("ibv_wr_start")) {
            throw CallGuards.refusal(qp);
        }
        try {
            wr_start.HANDLE.invokeExact(wrStart, qpEx);
        } catch (Throwable t) {
            session.release();
            throw Downcalls.unchecked(t);
        }
    }

    @Override
    public int wrComplete() {
        session.requireHeld("ibv_wr_complete");
        try {
            return (int) wr_complete.HANDLE.invokeExact(wrComplete, qpEx);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        } finally {
            session.release();
        }
    }

    @Override
    public void wrAbort() {
        session.requireHeld("ibv_wr_abort");
        try {
            wr_void.HANDLE.invokeExact(wrAbort, qpEx);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        } finally {
            session.release();
        }
    }

    @Override
    public void wrId(long wrId) {
        session.requireHeld("qpx->wr_id");
        IbvQpEx.WR_ID.set(qpEx, wrId);
    }

    @Override
    public void wrFlags(int flags) {
        session.requireHeld("qpx->wr_flags");
        IbvQpEx.WR_FLAGS.set(qpEx, flags);
    }

    @Override
    public void send() {
        call(wrSend, "ibv_wr_send");
    }

    @Override
    public void sendImm(int imm) {
        u32(wrSendImm, "ibv_wr_send_imm", htonl(imm));
    }

    @Override
    public void rdmaWrite(int rkey, long remoteAddress) {
        rdma(wrRdmaWrite, "ibv_wr_rdma_write", rkey, remoteAddress);
    }

    @Override
    public void rdmaWriteImm(int rkey, long remoteAddress, int imm) {
        u32u64u32(wrRdmaWriteImm, "ibv_wr_rdma_write_imm", rkey, remoteAddress, htonl(imm));
    }

    @Override
    public void rdmaRead(int rkey, long remoteAddress) {
        rdma(wrRdmaRead, "ibv_wr_rdma_read", rkey, remoteAddress);
    }

    @Override
    public void atomicFetchAdd(int rkey, long remoteAddress, long add) {
        require(wrAtomicFetchAdd, "ibv_wr_atomic_fetch_add");
        try {
            wr_atomic_fetch_add.HANDLE.invokeExact(wrAtomicFetchAdd, qpEx, rkey, remoteAddress, add);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    @Override
    public void atomicCmpSwp(int rkey, long remoteAddress, long compare, long swap) {
        require(wrAtomicCmpSwp, "ibv_wr_atomic_cmp_swp");
        try {
            wr_atomic_cmp_swp.HANDLE.invokeExact(wrAtomicCmpSwp, qpEx, rkey, remoteAddress, compare, swap);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    @Override
    public void setSge(int lkey, long address, int length) {
        u32u64u32(wrSetSge, "ibv_wr_set_sge", lkey, address, length);
    }

    @Override
    public void setSgeList(int count, long[] addresses, int[] lengths, int[] lkeys) {
        require(wrSetSgeList, "ibv_wr_set_sge_list");
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

    /** The provider copies the address handle's address vector into the WQE: the AH is held for the call. */
    @Override
    public void setUdAddr(AhHandle ah, int remoteQpn, int remoteQkey) {
        require(wrSetUdAddr, "ibv_wr_set_ud_addr");
        NativeAh a = provider.identify(ah, NativeAh.class);
        a.udAddressing().enter();
        try {
            wr_set_ud_addr.HANDLE.invokeExact(wrSetUdAddr, qpEx, a.pointer(), remoteQpn, remoteQkey);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        } finally {
            a.udAddressing().exit();
        }
    }

    @Override
    public void setXrcSrqn(int remoteSrqn) {
        u32(wrSetXrcSrqn, "ibv_wr_set_xrc_srqn", remoteSrqn);
    }

    @Override
    public void setInlineData(long address, int length) {
        require(wrSetInlineData, "ibv_wr_set_inline_data");
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

    private void call(MemorySegment function, String verb) {
        require(function, verb);
        try {
            wr_void.HANDLE.invokeExact(function, qpEx);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private void u32(MemorySegment function, String verb, int value) {
        require(function, verb);
        try {
            wr_u32.HANDLE.invokeExact(function, qpEx, value);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private void rdma(MemorySegment function, String verb, int rkey, long remoteAddress) {
        require(function, verb);
        try {
            wr_rdma.HANDLE.invokeExact(function, qpEx, rkey, remoteAddress);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private void u32u64u32(MemorySegment function, String verb, int a, long b, int c) {
        require(function, verb);
        try {
            wr_u32_u64_u32.HANDLE.invokeExact(function, qpEx, a, b, c);
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** {@code verb} is a constant: the data path builds no string. */
    private void require(MemorySegment function, String verb) {
        session.requireHeld(verb);
        if (isNull(function)) {
            String member = verb.substring("ibv_".length());
            throw new IllegalStateException(qp.describe() + " has no " + member + " (NULL in its ibv_qp_ex): the "
                    + "operation was not in send_ops_flags at create, or the provider lacks it");
        }
    }
}
