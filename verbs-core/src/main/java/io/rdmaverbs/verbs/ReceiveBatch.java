package io.rdmaverbs.verbs;

import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

import org.jspecify.annotations.Nullable;

/**
 * A reusable chain of receive work requests posted in one call: {@code ibv_post_recv(3)} through
 * {@link QueuePair#postReceive(ReceiveBatch)} or {@code ibv_post_srq_recv(3)} through
 * {@link SharedReceiveQueue#postReceive(ReceiveBatch)}. It is the refill path: the receives a poll
 * consumed go back in one call, without allocating. {@link #add()} hands out the next request, reset.
 *
 * <pre>{@code
 * refill.clear();
 * for (int i = 0; i < polled; i++) {
 *     refill.add().wrId(wc.wrId(i)).single(mr, slotOf(wc.wrId(i)), 4096);
 * }
 * qp.postReceive(refill);
 * }</pre>
 *
 * Not thread-safe: one batch per posting thread.
 */
public final class ReceiveBatch extends RequestBatch<ReceiveRequest> {

    private final WorkRequestChain<RecvWr> chain;

    ReceiveBatch(WorkRequestChain<RecvWr> chain) {
        super(chain, (i, checks) -> new ReceiveRequest(chain.request(i), checks), "receive");
        this.chain = chain;
    }

    /** The next request of the chain, reset to no entries. */
    public ReceiveRequest add() {
        return next();
    }

    /** Empties the batch; its memory stays for the next {@link #add()}s. */
    public ReceiveBatch clear() {
        empty();
        return this;
    }

    WorkRequestChain<RecvWr> chain() {
        return chain;
    }

    @Override
    ReceiveRequest reset(ReceiveRequest request) {
        return request.clear();
    }

    @Override
    @Nullable MemoryRegion checkPostable(ReceiveRequest request, DeviceContext context, @Nullable MemoryRegion checked) {
        return request.checkPostable(context, checked);
    }

    @Override
    void closeWithBatch(ReceiveRequest request) {
        request.closeWithBatch();
    }
}
