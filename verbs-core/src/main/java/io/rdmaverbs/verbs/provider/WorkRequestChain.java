package io.rdmaverbs.verbs.provider;

/**
 * A reusable chain of work requests in the provider's own format, posted in one call: the {@code next}
 * links of {@code struct ibv_send_wr} / {@code struct ibv_recv_wr} ({@code ibv_post_send(3)}). The
 * {@link #capacity()} slots exist from creation; {@link #length(int)} says how many of them, from slot 0,
 * the next post takes, and relinks the chain in constant time, so posting allocates nothing. The
 * chain owns its slots: closing a slot alone is not possible, closing the chain frees them all.
 * Thread-confined like a single request.
 *
 * @param <W> {@link SendWr} or {@link RecvWr}
 */
public interface WorkRequestChain<W extends WorkRequest> extends AutoCloseable {

    int capacity();

    /** Slot {@code index}, 0..capacity-1, whether or not it is within {@link #length()}. */
    W request(int index);

    /** Makes slots {@code 0..length-1} the chain the next post takes (0: an empty chain). */
    void length(int length);

    int length();

    /** Frees every slot's memory. Idempotent. */
    @Override
    void close();
}
