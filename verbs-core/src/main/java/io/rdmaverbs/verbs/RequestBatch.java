package io.rdmaverbs.verbs;

import java.util.Objects;

import io.rdmaverbs.verbs.provider.WorkRequestChain;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link SendBatch} and a {@link ReceiveBatch} share: the provider's chain, one request object
 * per slot made once, and how many of them were added. Adding sets the chain's length, so the chain's
 * links always end at the last request added. Its requests share one {@link PostChecks}: a batch posted
 * again with no request changed is checked only for the regions and handles it names being closed or freed.
 *
 * @param <R> {@link SendRequest} or {@link ReceiveRequest}
 */
abstract sealed class RequestBatch<R> implements AutoCloseable permits SendBatch, ReceiveBatch {

    private final WorkRequestChain<?> chain;
    private final Object[] requests;
    private final String kind;
    /** What the last full check of the batch found; every request's setters reach it. */
    final PostChecks checks = new PostChecks();
    private int size;
    private boolean closed;

    /** Makes the request of slot {@code index}, sharing the batch's {@code checks}. */
    interface Slot<R> {
        R make(int index, PostChecks checks);
    }

    RequestBatch(WorkRequestChain<?> chain, Slot<R> slot, String kind) {
        this.chain = chain;
        this.kind = kind;
        this.requests = new Object[chain.capacity()];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = slot.make(i, checks);
        }
    }

    /** Resets a request before it is handed out again. */
    abstract R reset(R request);

    /** The single request's own checks before a post, given the region the one before it checked last. */
    abstract @Nullable MemoryRegion checkPostable(R request, DeviceContext context, @Nullable MemoryRegion checked);

    abstract void closeWithBatch(R request);

    @SuppressWarnings("unchecked")
    private R at(int index) {
        return (R) requests[index];
    }

    final R next() {
        requireOpen();
        if (size == requests.length) {
            throw new IllegalStateException("this " + kind + " batch holds " + requests.length + " requests, all "
                    + "added; post it and clear() it, or create a larger one");
        }
        // The reset changes the batch's checks (a request's clear() does).
        R request = reset(at(size));
        chain.length(++size);
        return request;
    }

    /** Request {@code index} of those added, to change before posting again. */
    public final R get(int index) {
        return at(Objects.checkIndex(index, size));
    }

    /** How many requests were added: the next post posts them, in order. */
    public final int size() {
        return size;
    }

    public final int capacity() {
        return requests.length;
    }

    final void empty() {
        requireOpen();
        checks.changed();
        size = 0;
        chain.length(0);
    }

    /**
     * Every request passes the single request's checks, and an empty batch is not posted. Walks the requests
     * only if one changed since the last walk passed for {@code context}.
     */
    final void checkPostable(DeviceContext context) {
        requireNotEmpty();
        if (checks.due(context)) {
            MemoryRegion checked = null;
            for (int i = 0; i < size; i++) {
                checked = checkPostable(at(i), context, checked);
            }
            checks.passed(context);
        }
    }

    /** Refuses a closed or empty batch, before its requests are checked. */
    final void requireNotEmpty() {
        requireOpen();
        if (size == 0) {
            throw new IllegalStateException("this " + kind + " batch is empty: add() requests before posting it");
        }
    }

    /** Request {@code index}, known to be below {@link #size()}. */
    final R request(int index) {
        return at(index);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("this " + kind + " batch was closed");
        }
    }

    /** Frees the batch's memory and closes its requests. Idempotent. */
    @Override
    public final void close() {
        if (!closed) {
            closed = true;
            for (int i = 0; i < requests.length; i++) {
                closeWithBatch(at(i));
            }
            chain.close();
        }
    }
}
