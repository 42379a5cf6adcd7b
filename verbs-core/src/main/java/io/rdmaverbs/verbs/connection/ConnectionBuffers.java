package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

import io.rdmaverbs.verbs.MemoryRegion;

/**
 * The buffers a {@link Connection} registered, in one memory region: {@link #receiveCount()} receive
 * buffers (each posted once before the handshake, work request id = its index), then
 * {@link #sendCount()} send buffers.
 */
public final class ConnectionBuffers {

    private final MemoryRegion region;
    private final int receiveCount;
    private final int receiveSize;
    private final int sendCount;
    private final int sendSize;
    /**
     * Each buffer's segment, sliced once: the session looks a receive buffer up per completion, and a slice
     * made then would be an allocation per message (the guests' C1 does not eliminate it).
     */
    private final MemorySegment[] receiveBuffers;
    private final MemorySegment[] sendBuffers;

    ConnectionBuffers(MemoryRegion region, ConnectionSpec spec) {
        this.region = region;
        this.receiveCount = spec.receiveBufferCount();
        this.receiveSize = spec.receiveBufferSize();
        this.sendCount = spec.sendBufferCount();
        this.sendSize = spec.sendBufferSize();
        this.receiveBuffers = new MemorySegment[receiveCount];
        for (int i = 0; i < receiveCount; i++) {
            receiveBuffers[i] = region.segment().asSlice(receiveOffset(i), receiveSize);
        }
        this.sendBuffers = new MemorySegment[sendCount];
        for (int i = 0; i < sendCount; i++) {
            sendBuffers[i] = region.segment().asSlice(sendOffset(i), sendSize);
        }
    }

    /** The one region all buffers are in (its lkey goes into every work request). */
    public MemoryRegion region() {
        return region;
    }

    public int receiveCount() {
        return receiveCount;
    }

    public int receiveSize() {
        return receiveSize;
    }

    public int sendCount() {
        return sendCount;
    }

    public int sendSize() {
        return sendSize;
    }

    /** The offset of receive buffer {@code index} in {@link #region()}. */
    public long receiveOffset(int index) {
        Objects.checkIndex(index, receiveCount);
        return (long) index * receiveSize;
    }

    /** The offset of send buffer {@code index} in {@link #region()}. */
    public long sendOffset(int index) {
        Objects.checkIndex(index, sendCount);
        return (long) receiveCount * receiveSize + (long) index * sendSize;
    }

    /** Receive buffer {@code index}: what a receive with that work request id was filled with. */
    public MemorySegment receiveBuffer(int index) {
        return receiveBuffers[Objects.checkIndex(index, receiveCount)];
    }

    /** Send buffer {@code index}, to fill before posting a send from it. */
    public MemorySegment sendBuffer(int index) {
        return sendBuffers[Objects.checkIndex(index, sendCount)];
    }
}
