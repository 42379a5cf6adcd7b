package io.rdmaverbs.verbs.attr;


/**
 * A reusable array of work completions ({@code struct ibv_wc[capacity]}) that
 * {@link io.rdmaverbs.verbs.CompletionQueue#poll(WorkCompletions)} fills, so that polling allocates nothing. Entries
 * {@code 0 .. n-1} are valid after a poll that returned {@code n}. One buffer per polling thread.
 * Native providers back it with off-heap memory; close it (or let its owner close) to free that.
 */
public interface WorkCompletions extends AutoCloseable {

    int capacity();

    long wrId(int index);

    int statusCode(int index);

    default WcStatus status(int index) {
        return WcStatus.of(statusCode(index));
    }

    int opcodeCode(int index);

    default WcOpcode opcode(int index) {
        return WcOpcode.of(opcodeCode(index));
    }

    int vendorError(int index);

    int byteLength(int index);

    /** Immediate data in host byte order (valid when {@code wcFlags} has {@code WITH_IMM}). */
    int immediateData(int index);

    int qpNum(int index);

    int sourceQp(int index);

    int wcFlags(int index);

    int pkeyIndex(int index);

    int sourceLid(int index);

    /** Frees the buffer's memory; a closed buffer must not be polled into. Idempotent. */
    @Override
    void close();
}
