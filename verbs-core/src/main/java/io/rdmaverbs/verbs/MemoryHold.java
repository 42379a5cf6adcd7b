package io.rdmaverbs.verbs;

/**
 * A Java reader's hold on the memory of a {@link MemoryRegion} ({@link MemoryRegion#holdMemory}): while it is
 * held, closing the region deregisters it as always ({@code ibv_dereg_mr(3)}: the device can no longer reach
 * the memory) but leaves the memory the region allocated in place; the last hold's {@link #close()} frees
 * it. A message handler reading a received payload holds the memory that payload lies in, so that a close of
 * its connection on another thread can never free it under the handler. One per reader; {@link #close()} is
 * idempotent.
 */
public final class MemoryHold implements AutoCloseable {

    private final MemoryRegion region;
    private boolean closed;

    MemoryHold(MemoryRegion region) {
        this.region = region;
    }

    /** The region whose memory is held. */
    public ResourceRef region() {
        return region.ref();
    }

    /** Ends the hold: the memory is freed now if the region was closed meanwhile and no other hold remains. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            region.memoryHoldEnded();
        }
    }

    @Override
    public String toString() {
        return "hold on the memory of " + region.ref() + (closed ? " (ended)" : "");
    }
}
