package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;

import java.time.Instant;

import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.CqExPoller;
import io.rdmaverbs.verbs.provider.QueueLock;

import org.jspecify.annotations.Nullable;

/**
 * The extended polling of one simulated CQ: {@code start_poll} and {@code next_poll} take the oldest
 * completion as the current one (ENOENT when there is none), the reads return its fields. A read of a
 * field the CQ was not created to report fails, where the C function pointer would be NULL. The
 * device's clock is {@link System#nanoTime()}, read when the poller takes the completion.
 *
 * <p>A batch holds the CQ's {@link QueueLock} from {@code start_poll} to {@code end_poll}, as rxe holds its CQ
 * spinlock (rdma-core 44's {@code cq_start_poll} to {@code cq_end_poll}) and the native provider holds the same
 * lock class: the same refusals on both providers (another thread's reads and end, a second start on the
 * holding thread), another thread's start waiting for the end, and {@code destroyCq} waiting for it too.
 */
final class SimCqExPoller implements CqExPoller {

    private final SimCq cq;
    final QueueLock batch;
    private @Nullable Completion current;
    private long takenAt;

    SimCqExPoller(SimCq cq) {
        this.cq = cq;
        this.batch = new QueueLock(cq, QueueLock.Kind.BATCH);
    }

    @Override
    public int startPoll() {
        if (!batch.take("ibv_start_poll")) {
            throw new IllegalStateException(cq.describe() + (cq.isDestroyed() ? " was already destroyed"
                    : " is being destroyed"));
        }
        int rc;
        try {
            rc = take();
        } catch (RuntimeException | Error e) {
            batch.release();
            throw e;
        }
        if (rc != 0) {
            batch.release();
        }
        return rc;
    }

    @Override
    public int nextPoll() {
        batch.requireHeld("ibv_next_poll");
        return take();
    }

    private int take() {
        return locked(cq.device, () -> {
            cq.requireUsable();
            current = cq.entries.pollFirst();
            takenAt = System.nanoTime();
            return current == null ? Errno.ENOENT.number() : 0;
        });
    }

    @Override
    public void endPoll() {
        batch.requireHeld("ibv_end_poll");
        current = null;
        batch.release();
    }

    private Completion current(String call) {
        batch.requireHeld(call);
        Completion c = current;
        if (c == null) {
            throw new IllegalStateException(cq.describe() + ": no completion is current (start_poll/next_poll found none)");
        }
        return c;
    }

    private Completion reported(CompletionField field, String call) {
        batch.requireHeld(call);
        if ((cq.wcFlags & field.bit()) == 0) {
            throw new IllegalStateException(cq.describe() + " has no read function for " + field + ": IBV_WC_EX_WITH_"
                    + field + " was not in its wc_flags");
        }
        return current(call);
    }

    @Override
    public long wrId() {
        return current("cq->wr_id").wrId();
    }

    @Override
    public WcStatus status() {
        return current("cq->status").status();
    }

    @Override
    public WcOpcode readOpcode() {
        return current("ibv_wc_read_opcode").opcode();
    }

    @Override
    public int readVendorErr() {
        current("ibv_wc_read_vendor_err");
        return 0;
    }

    @Override
    public int readWcFlags() {
        return current("ibv_wc_read_wc_flags").flags();
    }

    @Override
    public int readByteLen() {
        return reported(CompletionField.BYTE_LEN, "ibv_wc_read_byte_len").byteLength();
    }

    @Override
    public int readImmData() {
        return reported(CompletionField.IMM, "ibv_wc_read_imm_data").immediate();
    }

    @Override
    public int readQpNum() {
        return reported(CompletionField.QP_NUM, "ibv_wc_read_qp_num").qpNum();
    }

    @Override
    public int readSrcQp() {
        return reported(CompletionField.SRC_QP, "ibv_wc_read_src_qp").sourceQp();
    }

    @Override
    public int readSlid() {
        return reported(CompletionField.SLID, "ibv_wc_read_slid").sourceLid();
    }

    @Override
    public int readSl() {
        reported(CompletionField.SL, "ibv_wc_read_sl");
        return 0;
    }

    @Override
    public int readDlidPathBits() {
        reported(CompletionField.DLID_PATH_BITS, "ibv_wc_read_dlid_path_bits");
        return 0;
    }

    @Override
    public long readCompletionTs() {
        reported(CompletionField.COMPLETION_TIMESTAMP, "ibv_wc_read_completion_ts");
        return takenAt;
    }

    @Override
    public long readCompletionWallclockNs() {
        reported(CompletionField.COMPLETION_TIMESTAMP_WALLCLOCK, "ibv_wc_read_completion_wallclock_ns");
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
