package io.rdmaverbs.verbs;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.QpExOps;

import org.jspecify.annotations.Nullable;

/**
 * A session of the new post API ({@code ibv_wr_post(3)}) on a QP created with
 * {@link QueuePairSpec#withSendOps}: {@link #start()} ({@code ibv_wr_start}), then per work request an
 * operation ({@code ibv_wr_send}, {@code ibv_wr_rdma_write}...) followed by its setters
 * ({@code ibv_wr_set_sge}, {@code ibv_wr_set_ud_addr}...), and {@link #complete()}
 * ({@code ibv_wr_complete}) posts them all, or {@link #abort()} drops them. Each call goes straight to
 * the QP's own function pointer; nothing is built in Java.
 *
 * <pre>{@code
 * wr.start();
 * wr.wrId(1).send().sge(mr, 0, 64);
 * wr.wrId(2).rdmaWrite(remote, rkey).sge(mr, 64, 64);
 * wr.complete();
 * }</pre>
 *
 * What C would crash on or silently misbuild is refused in Java, with the session left as it was:
 * an operation or setter outside a session, a setter before any operation, {@code complete} or
 * {@code abort} without {@code start}, an operation the QP was not created for (its pointer is NULL),
 * a UD request without its address or an XRC one without its SRQ number before the next operation,
 * an atomic on a misaligned remote address or into fewer than 8 bytes, inline data beyond
 * {@code max_inline_data}, and regions closed before {@code complete} (which then aborts). A session
 * holds the QP until it ends (a close waits in the provider's destroy), as the provider holds its send
 * queue: keep sessions short. Not
 * thread-safe: one builder per posting thread. A session stays on the thread that started it (the provider's
 * send-queue lock is that thread's): its builders, setters, {@code complete} and {@code abort} on another
 * thread are refused with a {@link WrongThreadException}, leaving the session as it was; a {@code start} inside
 * the thread's own session, through another builder of the QP too, is refused, as are
 * {@link QueuePair#postSend(SendRequest) postSend} and a close of the QP there; another thread's {@code start}
 * waits for the session to end.
 */
public final class WorkRequestBuilder {

    private final QueuePair qp;
    private final QpExOps ops;
    private final long[] addresses;
    private final int[] lengths;
    private final int[] lkeys;
    private final @Nullable MemoryRegion[] staged;
    /** The regions the session's requests point into, checked again at complete. */
    private @Nullable MemoryRegion[] used = new MemoryRegion[8];
    private int usedCount;
    private boolean started;
    /** The operation of the request being built, null before the first of a session. */
    private @Nullable SendOpcode current;
    private int built;
    private boolean needsDestination;

    WorkRequestBuilder(QueuePair qp, QpExOps ops, int maxSge) {
        this.qp = qp;
        this.ops = ops;
        this.addresses = new long[maxSge];
        this.lengths = new int[maxSge];
        this.lkeys = new int[maxSge];
        this.staged = new MemoryRegion[maxSge];
    }

    /** {@code ibv_wr_start}: begins a session; the QP's send queue is this thread's until it ends. */
    public WorkRequestBuilder start() {
        if (started) {
            throw new IllegalStateException("start() inside a session: complete() or abort() it first");
        }
        // Not entered, as QueuePair#postSend: the provider guards the session from start to its end itself
        // (QueuePairVerbs#destroyQp waits for it), so a session pays one guard.
        qp.checkOpen();
        try {
            ops.wrStart();
        } catch (IllegalStateException e) {
            throw qp.closedOr(e);
        }
        started = true;
        current = null;
        built = 0;
        usedCount = 0;
        needsDestination = false;
        return this;
    }

    /** The id of the requests built from now on ({@code qpx->wr_id}). */
    public WorkRequestBuilder wrId(long id) {
        requireStarted("wrId");
        ops.wrId(id);
        return this;
    }

    /** {@link io.rdmaverbs.verbs.attr.SendFlag} bits of the requests built from now on ({@code qpx->wr_flags}). */
    public WorkRequestBuilder flags(int sendFlags) {
        requireStarted("flags");
        ops.wrFlags(sendFlags);
        return this;
    }

    /** {@code ibv_wr_send}. */
    public WorkRequestBuilder send() {
        check(SendOpcode.SEND);
        ops.send();
        begun(SendOpcode.SEND);
        return this;
    }

    /** {@code ibv_wr_send_imm}, {@code imm} in host byte order. */
    public WorkRequestBuilder sendWithImm(int imm) {
        check(SendOpcode.SEND_WITH_IMM);
        ops.sendImm(imm);
        begun(SendOpcode.SEND_WITH_IMM);
        return this;
    }

    /** {@code ibv_wr_rdma_write}. */
    public WorkRequestBuilder rdmaWrite(long remoteAddress, int rkey) {
        check(SendOpcode.RDMA_WRITE);
        ops.rdmaWrite(rkey, remoteAddress);
        begun(SendOpcode.RDMA_WRITE);
        return this;
    }

    /** {@code ibv_wr_rdma_write_imm}. */
    public WorkRequestBuilder rdmaWriteWithImm(long remoteAddress, int rkey, int imm) {
        check(SendOpcode.RDMA_WRITE_WITH_IMM);
        ops.rdmaWriteImm(rkey, remoteAddress, imm);
        begun(SendOpcode.RDMA_WRITE_WITH_IMM);
        return this;
    }

    /** {@code ibv_wr_rdma_read}. */
    public WorkRequestBuilder rdmaRead(long remoteAddress, int rkey) {
        check(SendOpcode.RDMA_READ);
        ops.rdmaRead(rkey, remoteAddress);
        begun(SendOpcode.RDMA_READ);
        return this;
    }

    /** {@code ibv_wr_atomic_fetch_add}: the original 8 bytes land in the request's entry. */
    public WorkRequestBuilder atomicFetchAdd(long remoteAddress, int rkey, long add) {
        checkAligned(SendOpcode.ATOMIC_FETCH_AND_ADD, remoteAddress);
        check(SendOpcode.ATOMIC_FETCH_AND_ADD);
        ops.atomicFetchAdd(rkey, remoteAddress, add);
        begun(SendOpcode.ATOMIC_FETCH_AND_ADD);
        return this;
    }

    /** {@code ibv_wr_atomic_cmp_swp}: writes {@code swap} where it finds {@code compare}. */
    public WorkRequestBuilder atomicCompareSwap(long remoteAddress, int rkey, long compare, long swap) {
        checkAligned(SendOpcode.ATOMIC_CMP_AND_SWP, remoteAddress);
        check(SendOpcode.ATOMIC_CMP_AND_SWP);
        ops.atomicCmpSwp(rkey, remoteAddress, compare, swap);
        begun(SendOpcode.ATOMIC_CMP_AND_SWP);
        return this;
    }

    /** {@code ibv_wr_set_sge}: the request's one entry, {@code length} bytes at {@code offset} of {@code region}. */
    public WorkRequestBuilder sge(MemoryRegion region, long offset, int length) {
        requireBuilding("sge");
        SendRequest.checkSegment(0, region, offset, length, 1);
        checkAtomicLength(length);
        use(region);
        ops.setSge(region.lkey(), region.address() + offset, length);
        return this;
    }

    /** Stages entry {@code index} for {@link #sgeList(int)}; may be called outside a session. */
    public WorkRequestBuilder entry(int index, MemoryRegion region, long offset, int length) {
        SendRequest.checkSegment(index, region, offset, length, staged.length);
        addresses[index] = region.address() + offset;
        lengths[index] = length;
        lkeys[index] = region.lkey();
        if (staged[index] != region) {
            // Stored only when it changes, as SendRequest#segment says why.
            staged[index] = region;
        }
        return this;
    }

    /** {@code ibv_wr_set_sge_list} of the first {@code count} staged entries. */
    public WorkRequestBuilder sgeList(int count) {
        requireBuilding("sgeList");
        Objects.checkFromToIndex(0, count, staged.length);
        long total = 0;
        for (int i = 0; i < count; i++) {
            MemoryRegion r = staged[i];
            if (r == null) {
                throw new IllegalStateException("entry " + i + " was not staged (entry())");
            }
            use(r);
            total += Integer.toUnsignedLong(lengths[i]);
        }
        checkAtomicLength(total);
        ops.setSgeList(count, addresses, lengths, lkeys);
        return this;
    }

    /** {@code ibv_wr_set_ud_addr}: the destination of the UD request just built. */
    public WorkRequestBuilder udAddress(AddressHandle ah, int remoteQpn, int remoteQkey) {
        requireBuilding("udAddress");
        Objects.requireNonNull(ah, "ah");
        if (qp.type() != QpType.UD) {
            throw new IllegalStateException(qp.ref() + " is " + qp.type() + ": only UD requests take an address");
        }
        ah.checkOpen();
        if (ah.context() != qp.context()) {
            throw new IllegalArgumentException(ah.ref() + " belongs to another device context");
        }
        ops.setUdAddr(ah.handle, remoteQpn, remoteQkey);
        needsDestination = false;
        return this;
    }

    /** {@code ibv_wr_set_xrc_srqn}: the remote XRC SRQ of the XRC request just built. */
    public WorkRequestBuilder xrcRemoteSrqNum(int srqNum) {
        requireBuilding("xrcRemoteSrqNum");
        if (qp.type() != QpType.XRC_SEND) {
            throw new IllegalStateException(qp.ref() + " is " + qp.type() + ": only XRC send requests take an SRQ "
                    + "number");
        }
        ops.setXrcSrqn(srqNum);
        needsDestination = false;
        return this;
    }

    /** {@code ibv_wr_set_inline_data}: the request carries {@code data}'s bytes, copied now. */
    public WorkRequestBuilder inlineData(MemorySegment data) {
        requireBuilding("inlineData");
        if (!data.isNative()) {
            throw new IllegalArgumentException("inline data is copied from native memory; " + data + " is on the heap");
        }
        int max = qp.capabilities().maxInlineData();
        if (data.byteSize() > max) {
            throw new IllegalArgumentException(qp.ref() + " sends at most " + max + " bytes inline (max_inline_data "
                    + "granted at create), asked for " + data.byteSize());
        }
        ops.setInlineData(data.address(), (int) data.byteSize());
        return this;
    }

    /** How many requests the current session has built. */
    public int built() {
        return built;
    }

    /** Whether a session is open. */
    public boolean started() {
        return started;
    }

    /**
     * {@code ibv_wr_complete}: posts every request of the session and ends it. On failure none of them
     * was posted (the provider reports one errno for the session: rxe ENOSPC for a full queue, EINVAL for a
     * QP not ready to send) and the session has ended too.
     */
    public void complete() {
        requireStarted("complete");
        if (needsDestination) {
            throw new IllegalStateException("the last " + current + " has no destination: " + (qp.type() == QpType.UD
                    ? "udAddress()" : "xrcRemoteSrqNum()") + " before complete()");
        }
        for (int i = 0; i < usedCount; i++) {
            MemoryRegion r = used[i];
            if (r != null && (!r.isOpen() || !r.segment().scope().isAlive())) {
                abort();
                throw new IllegalStateException(r.ref() + " was closed during the session: aborted, nothing posted");
            }
        }
        int rc;
        boolean refused = false;
        try {
            rc = ops.wrComplete();
        } catch (WrongThreadException e) {
            refused = true;   // nothing changed: the session is still its thread's
            throw e;
        } finally {
            if (!refused) {
                end();
            }
        }
        if (rc != 0) {
            throw new VerbsException("ibv_wr_complete", qp.ref().toString(), Errno.of(rc), Errno.of(rc)
                    .equals(Errno.ENOSPC) ? "the send queue had no room for the session's requests; none was posted"
                    : "none of the session's requests was posted");
        }
    }

    /** {@code ibv_wr_abort}: drops the session's requests and ends it. */
    public void abort() {
        requireStarted("abort");
        boolean refused = false;
        try {
            ops.wrAbort();
        } catch (WrongThreadException e) {
            refused = true;
            throw e;
        } finally {
            if (!refused) {
                end();
            }
        }
    }

    private void end() {
        started = false;
        current = null;
        Arrays.fill(used, 0, usedCount, null);
        usedCount = 0;
    }

    /** Refuses {@code op} where C would misbuild it; changes nothing. */
    private void check(SendOpcode op) {
        requireStarted(op.name());
        if (!qp.sendOps().contains(op)) {
            throw new IllegalStateException(qp.ref() + " was not created for " + op + " (IBV_QP_EX_WITH_" + op
                    + " not in its send_ops_flags): add it to QueuePairSpec.withSendOps");
        }
        if (needsDestination) {
            throw new IllegalStateException("the previous " + current + " has no destination yet: "
                    + (qp.type() == QpType.UD ? "udAddress()" : "xrcRemoteSrqNum()"));
        }
    }

    /** The provider built {@code op}: it is the request the setters now change. */
    private void begun(SendOpcode op) {
        current = op;
        built++;
        needsDestination = qp.type() == QpType.UD || qp.type() == QpType.XRC_SEND;
    }

    private void requireStarted(String call) {
        if (!started) {
            throw new IllegalStateException(call + " outside a session: start() first (ibv_wr_start)");
        }
    }

    private void requireBuilding(String call) {
        requireStarted(call);
        if (current == null) {
            throw new IllegalStateException(call + " sets a field of the request just built: build one first "
                    + "(send(), rdmaWrite()...)");
        }
    }

    private static void checkAligned(SendOpcode op, long remoteAddress) {
        if ((remoteAddress & 7) != 0) {
            throw new IllegalArgumentException(op + " on remote address 0x" + Long.toHexString(remoteAddress)
                    + ": atomics operate on 8-byte aligned 64-bit words");
        }
    }

    private void checkAtomicLength(long length) {
        if ((current == SendOpcode.ATOMIC_FETCH_AND_ADD || current == SendOpcode.ATOMIC_CMP_AND_SWP) && length < 8) {
            throw new IllegalArgumentException(current + " returns the original 8 bytes into its entry, which holds "
                    + length + ": give it an 8-byte entry");
        }
    }

    private void use(MemoryRegion region) {
        SendRequest.checkRegion(region, qp.context());
        if (usedCount > 0 && used[usedCount - 1] == region) {
            return;
        }
        if (usedCount == used.length) {
            used = Arrays.copyOf(used, used.length * 2);
        }
        used[usedCount++] = region;
    }
}
