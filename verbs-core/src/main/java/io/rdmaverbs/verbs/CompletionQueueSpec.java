package io.rdmaverbs.verbs;

import java.util.Objects;
import java.util.Set;

import io.rdmaverbs.verbs.attr.CompletionField;

import org.jspecify.annotations.Nullable;

/**
 * What {@link DeviceContext#createCompletionQueue(CompletionQueueSpec)} creates ({@code ibv_create_cq(3)}):
 * the number of entries, the completion channel its events go to, and the completion vector. The
 * device's own bounds ({@code max_cqe}, {@code num_comp_vectors}) are checked when the CQ is created.
 *
 * <pre>{@code
 * ctx.createCompletionQueue(CompletionQueueSpec.of(256).withChannel(channel).withCompVector(1), "cq");
 * }</pre>
 *
 * @param entries at least this many entries, 1..{@code max_cqe}
 * @param channel where completion events go, or {@code null} for a CQ that is only polled
 * @param compVector the completion vector, 0..{@code num_comp_vectors - 1}
 * @param extendedFields {@code null} for a classic CQ ({@code ibv_create_cq}); otherwise an extended one
 *        ({@code ibv_create_cq_ex(3)}) reporting these fields to {@link CompletionQueue#newPoller()}. Both
 *        are the same resource with the same release rules; an extended CQ can be polled either way.
 */
public record CompletionQueueSpec(int entries, @Nullable CompletionChannel channel, int compVector,
        @Nullable Set<CompletionField> extendedFields) {

    /** Refuses what no device accepts (no entries, a negative vector), naming the field. */
    public CompletionQueueSpec {
        if (entries < 1) {
            throw new IllegalArgumentException("entries must be at least 1 (and at most the device's max_cqe), was "
                    + entries);
        }
        if (compVector < 0) {
            throw new IllegalArgumentException("compVector must be >= 0 (and below the device's num_comp_vectors), "
                    + "was " + compVector);
        }
        if (extendedFields != null) {
            extendedFields = Set.copyOf(extendedFields);
        }
    }

    /** A classic CQ ({@code ibv_create_cq}). */
    public CompletionQueueSpec(int entries, @Nullable CompletionChannel channel, int compVector) {
        this(entries, channel, compVector, null);
    }

    /** A CQ of at least {@code entries} entries, without a channel, on vector 0. */
    public static CompletionQueueSpec of(int entries) {
        return new CompletionQueueSpec(entries, null, 0);
    }

    /** The same CQ, its completion events delivered to {@code completionChannel}. */
    public CompletionQueueSpec withChannel(CompletionChannel completionChannel) {
        return new CompletionQueueSpec(entries, Objects.requireNonNull(completionChannel, "channel"), compVector,
                extendedFields);
    }

    /** The same CQ on completion vector {@code vector}. */
    public CompletionQueueSpec withCompVector(int vector) {
        return new CompletionQueueSpec(entries, channel, vector, extendedFields);
    }

    /**
     * The same CQ created with {@code ibv_create_cq_ex(3)}, polled through {@link CompletionQueue#newPoller()}
     * ({@code ibv_start_poll}, {@code ibv_wc_read_*}), reporting {@code fields} besides id, status,
     * opcode and flags.
     */
    public CompletionQueueSpec withExtendedPolling(Set<CompletionField> fields) {
        return new CompletionQueueSpec(entries, channel, compVector, Objects.requireNonNull(fields, "fields"));
    }

    /** {@link #withExtendedPolling(Set)} of the given fields. */
    public CompletionQueueSpec withExtendedPolling(CompletionField... fields) {
        return withExtendedPolling(Set.of(fields));
    }

    /** Whether this is an extended CQ ({@code ibv_create_cq_ex}). */
    public boolean isExtended() {
        return extendedFields != null;
    }
}
