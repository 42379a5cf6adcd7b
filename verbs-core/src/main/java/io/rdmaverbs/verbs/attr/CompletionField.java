package io.rdmaverbs.verbs.attr;

import java.util.Set;

/**
 * {@code enum ibv_create_cq_wc_flags}: the fields of a work completion an extended CQ
 * ({@code ibv_create_cq_ex(3)}) is asked to report, beyond the id, status, opcode and flags every
 * completion has. Only requested fields may be read ({@code ibv_wc_read_*}); a device that cannot
 * report one refuses the CQ (rxe: {@code EOPNOTSUPP} for the timestamps).
 */
public enum CompletionField {
    BYTE_LEN(1),
    IMM(1 << 1),
    QP_NUM(1 << 2),
    SRC_QP(1 << 3),
    SLID(1 << 4),
    SL(1 << 5),
    DLID_PATH_BITS(1 << 6),
    /** The completion's time in the device's clock ({@code ibv_wc_read_completion_ts}). */
    COMPLETION_TIMESTAMP(1 << 7),
    /** The completion's time in wall-clock nanoseconds ({@code ibv_wc_read_completion_wallclock_ns}). */
    COMPLETION_TIMESTAMP_WALLCLOCK(1 << 11);

    private final int bit;

    CompletionField(int bit) {
        this.bit = bit;
    }

    /** The {@code IBV_WC_EX_WITH_*} bit. */
    public int bit() {
        return bit;
    }

    /** {@code IBV_WC_STANDARD_FLAGS}: the fields every rdma-core provider with extended CQs reports. */
    public static final Set<CompletionField> STANDARD = Set.of(BYTE_LEN, IMM, QP_NUM, SRC_QP, SLID, SL,
            DLID_PATH_BITS);

    /** The {@code wc_flags} of {@code fields}. */
    public static long mask(Set<CompletionField> fields) {
        long mask = 0;
        for (CompletionField f : fields) {
            mask |= f.bit;
        }
        return mask;
    }
}
