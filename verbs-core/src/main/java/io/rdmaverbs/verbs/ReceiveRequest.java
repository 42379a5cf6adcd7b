package io.rdmaverbs.verbs;

import java.util.Arrays;

import io.rdmaverbs.verbs.provider.RecvWr;

import org.jspecify.annotations.Nullable;

/**
 * A reusable receive work request ({@code struct ibv_recv_wr}) for {@link QueuePair#postReceive} or
 * {@link SharedReceiveQueue#postReceive}; posting allocates nothing. Posted again unchanged on the same
 * device context, it is checked only for its regions closed or freed since ({@link PostChecks}). Not
 * thread-safe.
 */
public final class ReceiveRequest implements AutoCloseable {

    private final RecvWr wr;
    private final @Nullable MemoryRegion[] regions;
    /** The entry count, kept in Java as {@link SendRequest} keeps it. */
    private int sges;
    /** A request of a {@link ReceiveBatch}: it lives and dies with its batch. */
    private final boolean inBatch;
    /** Its own, or its batch's: what the last check before a post found. */
    private final PostChecks checks;
    private boolean closed;

    ReceiveRequest(RecvWr wr) {
        this(wr, new PostChecks(), false);
    }

    /** A request of the batch whose {@code checks} these are. */
    ReceiveRequest(RecvWr wr, PostChecks checks) {
        this(wr, checks, true);
    }

    private ReceiveRequest(RecvWr wr, PostChecks checks, boolean inBatch) {
        this.wr = wr;
        this.checks = checks;
        this.inBatch = inBatch;
        this.regions = new MemoryRegion[wr.maxSge()];
    }

    public ReceiveRequest wrId(long id) {
        wr.wrId(id);
        return this;
    }

    public long wrId() {
        return wr.wrId();
    }

    /** Sets entry {@code index} to {@code length} bytes at {@code offset} of {@code region}. */
    public ReceiveRequest segment(int index, MemoryRegion region, long offset, int length) {
        SendRequest.checkSegment(index, region, offset, length, regions.length);
        boolean moved = region != regions[index];
        if (moved) {
            checks.changed();
        }
        wr.sge(index, region.address() + offset, length, region.lkey());
        if (moved) {
            // Stored only when it changes, as SendRequest#segment says why.
            regions[index] = region;
        }
        return this;
    }

    public ReceiveRequest segments(int count) {
        if (count < 0 || count > regions.length) {
            throw new IllegalArgumentException("this request has room for 0.." + regions.length + " entries, asked for "
                    + count);
        }
        if (count != sges) {
            checks.changed();
        }
        wr.sgeCount(count);
        sges = count;
        return this;
    }

    /** One entry: {@code length} bytes at {@code offset} of {@code region}. */
    public ReceiveRequest single(MemoryRegion region, long offset, int length) {
        return segment(0, region, offset, length).segments(1);
    }

    public ReceiveRequest clear() {
        checks.changed();
        wr.clear();
        Arrays.fill(regions, null);
        sges = 0;
        return this;
    }

    RecvWr wr() {
        return wr;
    }

    void checkPostable(DeviceContext context) {
        if (closed) {
            throw new IllegalStateException("this receive request was closed");
        }
        if (checks.due(context)) {
            checkPostable(context, null);
            checks.passed(context);
        }
    }

    /** As {@link SendRequest#checkPostable(DeviceContext, MemoryRegion)}: a batch's region checked once. */
    @Nullable MemoryRegion checkPostable(DeviceContext context, @Nullable MemoryRegion checked) {
        return SendRequest.checkRegions(regions, sges, context, checked, checks);
    }

    /** Closing the batch closes its requests, each alone cannot be. */
    void closeWithBatch() {
        closed = true;
    }

    /** Frees the request's native memory. Idempotent. A request of a batch is closed with its batch. */
    @Override
    public void close() {
        if (inBatch) {
            throw new IllegalStateException("this receive request belongs to a batch: close the batch");
        }
        if (!closed) {
            closed = true;
            wr.close();
        }
    }
}
