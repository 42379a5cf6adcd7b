package io.rdmaverbs.verbs;

import java.util.Set;

import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CqExPoller;

/**
 * A polling session on an extended CQ ({@code ibv_create_cq_ex(3)}): a batch begins with {@link #start()}
 * ({@code ibv_start_poll}), moves with {@link #next()} ({@code ibv_next_poll}) and ends with
 * {@link #end()} ({@code ibv_end_poll}); between them the current completion is read field by field
 * ({@code ibv_wc_read_*}), with nothing copied into a {@code struct ibv_wc}.
 *
 * <pre>{@code
 * if (poller.start()) {
 *     try {
 *         do {
 *             handle(poller.wrId(), poller.status(), poller.byteLength());
 *         } while (poller.next());
 *     } finally {
 *         poller.end();
 *     }
 * }
 * }</pre>
 *
 * The order the man page prescribes is enforced in Java, as C would crash or corrupt the CQ instead:
 * {@code next}, {@code end} and the reads only inside a batch, no second {@code start} inside one, no
 * {@code end} after a {@code start} that found nothing, and only the fields the CQ was created to
 * report ({@link CompletionQueueSpec#withExtendedPolling}). A batch holds the CQ (a close waits in
 * the provider's destroy until {@code end}) as the provider holds the CQ's lock: keep batches short. Not
 * thread-safe: one poller per polling thread. A batch stays on the thread that started it (the provider's CQ
 * lock is that thread's): {@code next}, {@code end} and the reads on another thread are refused with a
 * {@link WrongThreadException}; a {@code start} inside the thread's own batch, through another poller of the
 * CQ too, is refused, as are {@link CompletionQueue#poll poll}, {@link CompletionQueue#requestNotification
 * requestNotification} and a close of the CQ there (each would wait for the batch forever); another thread's
 * {@code start} waits for the batch to end.
 *
 * <p>rdma-core 44's rxe unlocks the CQ in {@code ibv_next_poll} when it returns ENOENT, and its
 * {@code ibv_end_poll} then advances past the last completion once more (fixed in rdma-core 61,
 * "rxe: Fix double unlock in cq_ex polling"). This class follows the man page; on rxe from before that
 * fix, end a batch before {@code next} can run out (poll one completion per batch when unsure).
 */
public final class CompletionPoller {

    private final CompletionQueue cq;
    private final CqExPoller poller;
    private final Set<CompletionField> fields;
    /** Between a {@code start} that found a completion and its {@code end}. */
    private boolean inBatch;
    /** A completion is current: the last start or next found one. */
    private boolean current;

    CompletionPoller(CompletionQueue cq, CqExPoller poller, Set<CompletionField> fields) {
        this.cq = cq;
        this.poller = poller;
        this.fields = fields;
    }

    /**
     * {@code ibv_start_poll}: begins a batch at the oldest completion.
     *
     * @return whether there is one; without one no batch began and {@link #end()} must not be called
     */
    public boolean start() {
        if (inBatch) {
            throw new IllegalStateException("start() inside a batch: end() the batch first (ibv_start_poll after "
                    + "ibv_start_poll)");
        }
        // Not entered, as CompletionQueue#poll: the provider guards the batch from start to end itself
        // (CompletionVerbs#destroyCq waits for it), so a batch pays one guard.
        cq.checkOpen();
        int rc;
        try {
            rc = poller.startPoll();
        } catch (VerbsException e) {
            throw e.about(cq.ref().toString());
        } catch (IllegalStateException e) {
            throw cq.closedOr(e);
        }
        if (rc == 0) {
            inBatch = true;
            current = true;
            return true;
        }
        if (Errno.of(rc).equals(Errno.ENOENT)) {
            return false;
        }
        throw new VerbsException("ibv_start_poll", cq.ref().toString(), Errno.of(rc), "the CQ could not be polled");
    }

    /**
     * {@code ibv_next_poll}: moves to the next completion of the batch.
     *
     * @return whether there is one; either way the batch still ends with {@link #end()}
     */
    public boolean next() {
        requireBatch("next()");
        int rc = poller.nextPoll();
        current = rc == 0;
        if (rc == 0 || Errno.of(rc).equals(Errno.ENOENT)) {
            return current;
        }
        throw new VerbsException("ibv_next_poll", cq.ref().toString(), Errno.of(rc), "the CQ could not be polled; "
                + "end() the batch");
    }

    /**
     * {@code ibv_end_poll}: ends the batch, and the completions it went through leave the CQ. On another thread
     * than the one that started the batch it is refused with a {@link WrongThreadException}, and the batch stays
     * open for that thread to end.
     */
    public void end() {
        requireBatch("end()");
        boolean refused = false;
        try {
            poller.endPoll();
        } catch (WrongThreadException e) {
            refused = true;   // nothing changed: the batch is still its thread's
            throw e;
        } finally {
            if (!refused) {
                inBatch = false;
                current = false;
            }
        }
    }

    /** Whether a batch is open (a {@link #start()} found a completion and {@link #end()} did not follow). */
    public boolean inBatch() {
        return inBatch;
    }

    public long wrId() {
        requireCurrent();
        return poller.wrId();
    }

    public WcStatus status() {
        requireCurrent();
        return poller.status();
    }

    /** {@code ibv_wc_read_opcode}. */
    public WcOpcode opcode() {
        requireCurrent();
        return poller.readOpcode();
    }

    /** {@code ibv_wc_read_vendor_err}. */
    public int vendorError() {
        requireCurrent();
        return poller.readVendorErr();
    }

    /** {@code ibv_wc_read_wc_flags}: {@link io.rdmaverbs.verbs.attr.WcFlag} bits. */
    public int wcFlags() {
        requireCurrent();
        return poller.readWcFlags();
    }

    /** {@code ibv_wc_read_byte_len}; needs {@link CompletionField#BYTE_LEN}. */
    public int byteLength() {
        require(CompletionField.BYTE_LEN);
        return poller.readByteLen();
    }

    /** {@code ibv_wc_read_imm_data}, host byte order; needs {@link CompletionField#IMM}. */
    public int immediateData() {
        require(CompletionField.IMM);
        return poller.readImmData();
    }

    /** {@code ibv_wc_read_qp_num}; needs {@link CompletionField#QP_NUM}. */
    public int qpNum() {
        require(CompletionField.QP_NUM);
        return poller.readQpNum();
    }

    /** {@code ibv_wc_read_src_qp}; needs {@link CompletionField#SRC_QP}. */
    public int sourceQp() {
        require(CompletionField.SRC_QP);
        return poller.readSrcQp();
    }

    /** {@code ibv_wc_read_slid}; needs {@link CompletionField#SLID}. */
    public int sourceLid() {
        require(CompletionField.SLID);
        return poller.readSlid();
    }

    /** {@code ibv_wc_read_sl}; needs {@link CompletionField#SL}. */
    public int serviceLevel() {
        require(CompletionField.SL);
        return poller.readSl();
    }

    /** {@code ibv_wc_read_dlid_path_bits}; needs {@link CompletionField#DLID_PATH_BITS}. */
    public int dlidPathBits() {
        require(CompletionField.DLID_PATH_BITS);
        return poller.readDlidPathBits();
    }

    /** {@code ibv_wc_read_completion_ts}, device clock units; needs {@link CompletionField#COMPLETION_TIMESTAMP}. */
    public long completionTimestamp() {
        require(CompletionField.COMPLETION_TIMESTAMP);
        return poller.readCompletionTs();
    }

    /** {@code ibv_wc_read_completion_wallclock_ns}; needs {@link CompletionField#COMPLETION_TIMESTAMP_WALLCLOCK}. */
    public long completionWallclockNanos() {
        require(CompletionField.COMPLETION_TIMESTAMP_WALLCLOCK);
        return poller.readCompletionWallclockNs();
    }

    private void requireBatch(String call) {
        if (!inBatch) {
            throw new IllegalStateException(call + " outside a batch: start() must have found a completion first");
        }
    }

    private void requireCurrent() {
        requireBatch("reading a completion");
        if (!current) {
            throw new IllegalStateException("no completion is current: next() found none; end() the batch");
        }
    }

    private void require(CompletionField field) {
        requireCurrent();
        if (!fields.contains(field)) {
            throw new IllegalStateException(cq.ref() + " was not created to report " + field + " (IBV_WC_EX_WITH_"
                    + field + " not in its wc_flags): add it to CompletionQueueSpec.withExtendedPolling");
        }
    }
}
