package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;

import java.time.Instant;

import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.CqExPoller;

import org.jspecify.annotations.Nullable;

/**
 * The extended polling of one simulated CQ: {@code start_poll} and {@code next_poll} take the oldest
 * completion as the current one (ENOENT when there is none), the reads return its fields. A read of a
 * field the CQ was not created to report fails, where the C function pointer would be NULL. The
 * device's clock is {@link System#nanoTime()}, read when the poller takes the completion.
 */
final class SimCqExPoller implements CqExPoller {

    private final SimCq cq;
    private @Nullable Completion current;
    private long takenAt;

    SimCqExPoller(SimCq cq) {
        this.cq = cq;
    }

    @Override
    public int startPoll() {
        return take();
    }

    @Override
    public int nextPoll() {
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
        current = null;
    }

    private Completion current() {
        Completion c = current;
        if (c == null) {
            throw new IllegalStateException(cq.describe() + ": no completion is current (start_poll/next_poll found none)");
        }
        return c;
    }

    private Completion reported(CompletionField field) {
        if ((cq.wcFlags & field.bit()) == 0) {
            throw new IllegalStateException(cq.describe() + " has no read function for " + field + ": IBV_WC_EX_WITH_"
                    + field + " was not in its wc_flags");
        }
        return current();
    }

    @Override
    public long wrId() {
        return current().wrId();
    }

    @Override
    public WcStatus status() {
        return current().status();
    }

    @Override
    public WcOpcode readOpcode() {
        return current().opcode();
    }

    @Override
    public int readVendorErr() {
        current();
        return 0;
    }

    @Override
    public int readWcFlags() {
        return current().flags();
    }

    @Override
    public int readByteLen() {
        return reported(CompletionField.BYTE_LEN).byteLength();
    }

    @Override
    public int readImmData() {
        return reported(CompletionField.IMM).immediate();
    }

    @Override
    public int readQpNum() {
        return reported(CompletionField.QP_NUM).qpNum();
    }

    @Override
    public int readSrcQp() {
        return reported(CompletionField.SRC_QP).sourceQp();
    }

    @Override
    public int readSlid() {
        return reported(CompletionField.SLID).sourceLid();
    }

    @Override
    public int readSl() {
        reported(CompletionField.SL);
        return 0;
    }

    @Override
    public int readDlidPathBits() {
        reported(CompletionField.DLID_PATH_BITS);
        return 0;
    }

    @Override
    public long readCompletionTs() {
        reported(CompletionField.COMPLETION_TIMESTAMP);
        return takenAt;
    }

    @Override
    public long readCompletionWallclockNs() {
        reported(CompletionField.COMPLETION_TIMESTAMP_WALLCLOCK);
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
