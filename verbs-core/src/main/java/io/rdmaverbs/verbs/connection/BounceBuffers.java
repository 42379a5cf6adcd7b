package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.attr.AccessFlag;

import org.jspecify.annotations.Nullable;

/**
 * Registered memory for the one-sided operations whose local buffer is not in a region of the connection's
 * PD (a heap segment, a buffer registered elsewhere, an atomic's 8-byte result): the data is copied once,
 * through it. One region, registered on first use, holds {@value #SMALL_SLOTS} slots of
 * {@value #SMALL_SLOT_BYTES} bytes (as many as a session has operations in flight at its default depth,
 * so that small operations never register memory of their own) and {@value #SLOTS} of {@value #SLOT_BYTES};
 * a larger operation, or one that finds every slot it fits taken, gets a region of its own, deregistered
 * when it completes. Register the memory with the connection to avoid both the copy and that registration.
 */
final class BounceBuffers {

    static final int SLOT_BYTES = 64 << 10;
    static final int SLOTS = 16;
    static final int SMALL_SLOT_BYTES = 4 << 10;
    static final int SMALL_SLOTS = 128;
    private static final long SMALL_BASE = (long) SLOTS * SLOT_BYTES;

    /** Local memory of one operation: a slot, or a region of its own ({@code slot} -1). */
    record Bounce(MemoryRegion region, long offset, MemorySegment segment, int slot) {
    }

    private final Connection connection;
    private final ProtectionDomain pd;
    private final String name;
    /** Free slots, as stacks: large ones 0..SLOTS-1, small ones SLOTS.. after them. */
    private final int[] freeLarge = new int[SLOTS];
    private final int[] freeSmall = new int[SMALL_SLOTS];
    private int largeCount;
    private int smallCount;
    private @Nullable MemoryRegion slots;
    private boolean released;

    BounceBuffers(Connection connection, String name) {
        this.connection = connection;
        this.pd = connection.protectionDomain();
        this.name = name;
    }

    /** Memory for {@code bytes}; give it back with {@link #give} once the operation completed. */
    Bounce take(long bytes) {
        synchronized (this) {
            if (released) {
                throw new IllegalStateException(name + ": the connection's buffers were released");
            }
            if (bytes <= SLOT_BYTES) {
                MemoryRegion region = slots;
                if (region == null) {
                    region = pd.allocateMemory(SMALL_BASE + (long) SMALL_SLOTS * SMALL_SLOT_BYTES,
                            EnumSet.of(AccessFlag.LOCAL_WRITE), name + "/bounce");
                    slots = region;
                    for (int i = 0; i < SLOTS; i++) {
                        freeLarge[largeCount++] = i;
                    }
                    for (int i = 0; i < SMALL_SLOTS; i++) {
                        freeSmall[smallCount++] = SLOTS + i;
                    }
                }
                int slot = bytes <= SMALL_SLOT_BYTES && smallCount > 0 ? freeSmall[--smallCount]
                        : largeCount > 0 ? freeLarge[--largeCount] : -1;
                if (slot >= 0) {
                    long offset = offsetOf(slot);
                    return new Bounce(region, offset, region.segment().asSlice(offset, bytes), slot);
                }
            }
        }
        MemoryRegion own = pd.allocateMemory(bytes, EnumSet.of(AccessFlag.LOCAL_WRITE), name + "/bounce-" + bytes);
        return new Bounce(own, 0, own.segment().asSlice(0, bytes), -1);
    }

    private static long offsetOf(int slot) {
        return slot < SLOTS ? (long) slot * SLOT_BYTES : SMALL_BASE + (long) (slot - SLOTS) * SMALL_SLOT_BYTES;
    }

    void give(Bounce b) {
        if (b.slot() < 0) {
            connection.deregisterQuietly(b.region());
            return;
        }
        synchronized (this) {
            if (!released) {
                if (b.slot() < SLOTS) {
                    freeLarge[largeCount++] = b.slot();
                } else {
                    freeSmall[smallCount++] = b.slot();
                }
            }
        }
    }

    /** The connection is released: the slots go (an operation still holding one gets nothing back). */
    void release() {
        MemoryRegion r;
        synchronized (this) {
            released = true;
            r = slots;
            slots = null;
            largeCount = 0;
            smallCount = 0;
        }
        connection.deregisterQuietly(r);
    }

}
