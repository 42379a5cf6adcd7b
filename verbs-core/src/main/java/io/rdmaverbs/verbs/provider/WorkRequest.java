package io.rdmaverbs.verbs.provider;

/**
 * What send and receive work requests share: an id and a scatter/gather list, in the provider's own
 * format, reused from post to post so posting allocates nothing. Thread-confined: one request object per
 * posting thread. Setters overwrite; {@link #clear()} resets everything.
 */
public interface WorkRequest extends AutoCloseable {

    int maxSge();

    void clear();

    void wrId(long id);

    long wrId();

    /** Sets scatter/gather entry {@code index}; the count is {@link #sgeCount(int)}. */
    void sge(int index, long address, int length, int lkey);

    void sgeCount(int count);

    int sgeCount();

    long sgeAddress(int index);

    int sgeLength(int index);

    int sgeLkey(int index);

    /** Frees the request's memory. Idempotent. */
    @Override
    void close();
}
