package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Downcalls.CRITICAL;
import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;

import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.provider.CqExPoller;
import io.rdmaverbs.verbs.provider.QueueLock;

/**
 * The polling functions of one {@code struct ibv_cq_ex}, read once when the CQ is created, and called
 * as {@code verbs.h}'s static-inline {@code ibv_start_poll}, {@code ibv_wc_read_*}... call them:
 * {@code cq->start_poll(cq, attr)}. A read whose pointer the provider left NULL (a field not requested) is
 * refused here instead of jumping to address 0.
 *
 * <p>A batch holds the CQ's {@link QueueLock} from {@code start_poll} to {@code end_poll}, as the provider
 * holds its CQ lock that long (rxe and mlx5 take a spinlock in {@code start_poll} and release it in
 * {@code end_poll}): every call in between, and the end, is refused on any other thread; another thread's
 * start waits in Java for the end; {@code destroyCq} waits for an open batch to end, and a start after the
 * destroy began is refused. {@code start_poll} is linked as a normal downcall, not {@code critical}: it takes
 * the CQ lock, and a thread spinning for a lock inside a critical downcall holds up every safepoint while
 * the lock's holder may be stopped at one (issue 20: the whole JVM hung). The calls inside a batch are
 * made by the lock's holder and take no lock, so they stay critical.
 */
final class NativeCqExPoller implements CqExPoller {

    /** Takes the CQ lock: never critical. */
    private static final class start_poll {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC);
    }

    /** {@code next_poll}, and every read returning a 32-bit value ({@code uint32_t}, an enum, {@code __be32}). */
    private static final class read_u32 {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final class read_u8 {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_BYTE, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final class read_u64 {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_LONG, ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final class end_poll {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS);
        static final MethodHandle HANDLE = Downcalls.pointer(DESC, CRITICAL);
    }

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final NativeCq cq;
    private final QueueLock batch;
    private final MemorySegment struct;
    /** {@code struct ibv_poll_cq_attr}: a zero {@code comp_mask}, the only value defined. */
    private final MemorySegment pollAttr;
    private final MemorySegment startPoll;
    private final MemorySegment nextPoll;
    private final MemorySegment endPoll;
    private final MemorySegment readOpcode;
    private final MemorySegment readVendorErr;
    private final MemorySegment readByteLen;
    private final MemorySegment readImmData;
    private final MemorySegment readQpNum;
    private final MemorySegment readSrcQp;
    private final MemorySegment readWcFlags;
    private final MemorySegment readSlid;
    private final MemorySegment readSl;
    private final MemorySegment readDlidPathBits;
    private final MemorySegment readCompletionTs;
    private final MemorySegment readCompletionWallclockNs;

    NativeCqExPoller(NativeCq cq, MemorySegment cqEx) {
        this.cq = cq;
        this.batch = new QueueLock(cq, QueueLock.Kind.BATCH);
        this.struct = cqEx.reinterpret(IbvCqEx.LAYOUT.byteSize());
        this.pollAttr = Arena.ofAuto().allocate(JAVA_INT);
        this.startPoll = IbvCqEx.START_POLL.get(struct);
        this.nextPoll = IbvCqEx.NEXT_POLL.get(struct);
        this.endPoll = IbvCqEx.END_POLL.get(struct);
        this.readOpcode = IbvCqEx.READ_OPCODE.get(struct);
        this.readVendorErr = IbvCqEx.READ_VENDOR_ERR.get(struct);
        this.readByteLen = IbvCqEx.READ_BYTE_LEN.get(struct);
        this.readImmData = IbvCqEx.READ_IMM_DATA.get(struct);
        this.readQpNum = IbvCqEx.READ_QP_NUM.get(struct);
        this.readSrcQp = IbvCqEx.READ_SRC_QP.get(struct);
        this.readWcFlags = IbvCqEx.READ_WC_FLAGS.get(struct);
        this.readSlid = IbvCqEx.READ_SLID.get(struct);
        this.readSl = IbvCqEx.READ_SL.get(struct);
        this.readDlidPathBits = IbvCqEx.READ_DLID_PATH_BITS.get(struct);
        this.readCompletionTs = IbvCqEx.READ_COMPLETION_TS.get(struct);
        this.readCompletionWallclockNs = IbvCqEx.READ_COMPLETION_WALLCLOCK_NS.get(struct);
        if (isNull(startPoll) || isNull(nextPoll) || isNull(endPoll)) {
            throw new IllegalStateException(cq.describe() + ": the provider created an extended CQ without its "
                    + "start_poll, next_poll and end_poll");
        }
        cq.calls().add(batch);
    }

    /** The CQ's lock as its batches hold it: {@code poll_cq} and {@code req_notify_cq} check it too. */
    QueueLock batch() {
        return batch;
    }

    @Override
    public int startPoll() {
        if (!batch.take("ibv_start_poll")) {
            throw CallGuards.refusal(cq);
        }
        int rc;
        try {
            rc = (int) start_poll.HANDLE.invokeExact(startPoll, cq.pointer(), pollAttr);
        } catch (Throwable t) {
            batch.release();
            throw Downcalls.unchecked(t);
        }
        if (rc != 0) {
            batch.release();   // no batch began: ibv_start_poll(3) wants no end_poll after ENOENT or an error
        }
        return rc;
    }

    @Override
    public int nextPoll() {
        return u32(nextPoll, "ibv_next_poll");
    }

    @Override
    public void endPoll() {
        batch.requireHeld("ibv_end_poll");
        try {
            end_poll.HANDLE.invokeExact(endPoll, cq.pointer());
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        } finally {
            batch.release();
        }
    }

    @Override
    public long wrId() {
        batch.requireHeld("cq->wr_id");
        return IbvCqEx.WR_ID.get(struct);
    }

    @Override
    public WcStatus status() {
        batch.requireHeld("cq->status");
        return WcStatus.of(IbvCqEx.STATUS.get(struct));
    }

    @Override
    public WcOpcode readOpcode() {
        return WcOpcode.of(u32(readOpcode, "ibv_wc_read_opcode"));
    }

    @Override
    public int readVendorErr() {
        return u32(readVendorErr, "ibv_wc_read_vendor_err");
    }

    @Override
    public int readWcFlags() {
        return u32(readWcFlags, "ibv_wc_read_wc_flags");
    }

    @Override
    public int readByteLen() {
        return u32(readByteLen, "ibv_wc_read_byte_len");
    }

    /** {@code __be32}: {@code ntohl}, as {@code ibv_wc.imm_data} is read. */
    @Override
    public int readImmData() {
        int be = u32(readImmData, "ibv_wc_read_imm_data");
        return LITTLE_ENDIAN ? Integer.reverseBytes(be) : be;
    }

    @Override
    public int readQpNum() {
        return u32(readQpNum, "ibv_wc_read_qp_num");
    }

    @Override
    public int readSrcQp() {
        return u32(readSrcQp, "ibv_wc_read_src_qp");
    }

    @Override
    public int readSlid() {
        return u32(readSlid, "ibv_wc_read_slid");
    }

    @Override
    public int readSl() {
        return Byte.toUnsignedInt(u8(readSl, "ibv_wc_read_sl"));
    }

    @Override
    public int readDlidPathBits() {
        return Byte.toUnsignedInt(u8(readDlidPathBits, "ibv_wc_read_dlid_path_bits"));
    }

    @Override
    public long readCompletionTs() {
        return u64(readCompletionTs, "ibv_wc_read_completion_ts");
    }

    @Override
    public long readCompletionWallclockNs() {
        return u64(readCompletionWallclockNs, "ibv_wc_read_completion_wallclock_ns");
    }

    private int u32(MemorySegment function, String verb) {
        requireFunction(function, verb);
        try {
            return (int) read_u32.HANDLE.invokeExact(function, cq.pointer());
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private byte u8(MemorySegment function, String verb) {
        requireFunction(function, verb);
        try {
            return (byte) read_u8.HANDLE.invokeExact(function, cq.pointer());
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    private long u64(MemorySegment function, String verb) {
        requireFunction(function, verb);
        try {
            return (long) read_u64.HANDLE.invokeExact(function, cq.pointer());
        } catch (Throwable t) {
            throw Downcalls.unchecked(t);
        }
    }

    /** {@code verb} is a constant: the data path builds no string. */
    private void requireFunction(MemorySegment function, String verb) {
        batch.requireHeld(verb);
        if (isNull(function)) {
            String member = verb.substring(verb.startsWith("ibv_wc_") ? "ibv_wc_".length() : "ibv_".length());
            throw new IllegalStateException(cq.describe() + " has no " + member + " (NULL in its ibv_cq_ex): the "
                    + "field was not requested in wc_flags at ibv_create_cq_ex");
        }
    }
}
