package io.rdmaverbs.verbs.provider;

/**
 * A reusable receive work request in the provider's own format ({@code struct ibv_recv_wr} plus its
 * scatter/gather list for the native provider). Thread-confined, like {@link SendWr}.
 */
public interface RecvWr extends AutoCloseable {

    int maxSge();

    void clear();

    void wrId(long id);

    long wrId();

    void sge(int index, long address, int length, int lkey);

    void sgeCount(int count);

    int sgeCount();

    long sgeAddress(int index);

    int sgeLength(int index);

    int sgeLkey(int index);

    @Override
    void close();
}
