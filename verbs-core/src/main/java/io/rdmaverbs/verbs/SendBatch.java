package io.rdmaverbs.verbs;

import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

import org.jspecify.annotations.Nullable;

/**
 * A reusable chain of send work requests posted in one {@code ibv_post_send(3)} call
 * ({@link QueuePair#postSend(SendBatch)}): the {@code next} links of {@code struct ibv_send_wr}, in
 * memory that exists from {@link QueuePair#newSendBatch}, so building and posting allocate nothing.
 * {@link #add()} hands out the next request, reset to a signaled SEND; {@link #clear()} empties the
 * batch for the next round. A batch posted as it is, again and again, is built once.
 *
 * <pre>{@code
 * try (SendBatch batch = qp.newSendBatch(16, 1)) {
 *     for (int i = 0; i < 16; i++) {
 *         batch.add().wrId(i).single(mr, i * 64L, 64);
 *     }
 *     qp.postSend(batch);   // on failure PostFailedException.failedIndex(): the first not posted
 * }
 * }</pre>
 *
 * Not thread-safe: one batch per posting thread.
 */
public final class SendBatch extends RequestBatch<SendRequest> {

    private final WorkRequestChain<SendWr> chain;

    SendBatch(WorkRequestChain<SendWr> chain) {
        super(chain, (i, checks) -> new SendRequest(chain.request(i), checks), "send");
        this.chain = chain;
    }

    /** The next request of the chain, reset to a signaled SEND with no entries. */
    public SendRequest add() {
        return next();
    }

    /** Empties the batch; its memory stays for the next {@link #add()}s. */
    public SendBatch clear() {
        empty();
        return this;
    }

    WorkRequestChain<SendWr> chain() {
        return chain;
    }

    /**
     * The checks of a post to {@code qp}, in one pass over the requests: each request's own
     * ({@link SendRequest#checkPostable(DeviceContext, MemoryRegion)}, a region shared by neighbours
     * checked once) and the device's limits ({@link SendRequest#checkDeviceLimits}). Only if a request changed
     * since the last pass passed for {@code qp}: else only the regions and handles it found.
     */
    void checkPostable(QueuePair qp) {
        requireNotEmpty();
        if (checks.due(qp)) {
            DeviceContext context = qp.context();
            MemoryRegion checked = null;
            for (int i = 0, n = size(); i < n; i++) {
                SendRequest request = request(i);
                checked = request.checkPostable(context, checked);
                request.checkDeviceLimits(qp);
            }
            checks.passed(qp);
        }
    }

    @Override
    SendRequest reset(SendRequest request) {
        return request.clear();
    }

    @Override
    @Nullable MemoryRegion checkPostable(SendRequest request, DeviceContext context, @Nullable MemoryRegion checked) {
        return request.checkPostable(context, checked);
    }

    @Override
    void closeWithBatch(SendRequest request) {
        request.closeWithBatch();
    }
}
