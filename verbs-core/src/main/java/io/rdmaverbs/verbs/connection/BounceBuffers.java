package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.EnumSet;

import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.attr.AccessFlag;

import org.jspecify.annotations.Nullable;

/**
 * Registered memory for the one-sided operations whose local buffer is not in a region of the connection's
 * PD (a heap segment, a buffer registered elsewhere, an atomic's 8-byte result): the data is copied once,
 * through it. {@value #SLOTS} slots of {@value #SLOT_BYTES} bytes in one region, registered on first use;
 * a larger operation, or one that finds every slot taken, gets a region of its own, deregistered when it
 * completes. Register the memory with the connection to avoid both the copy and that registration.
 */
final class BounceBuffers {

    static final int SLOT_BYTES = 64 << 10;
    static final int SLOTS = 16;

    /** Local memory of one operation: a slot, or a region of its own ({@code slot} -1). */
    record Bounce(MemoryRegion region, long offset, MemorySegment segment, int slot) {
    }

    private final Connection connection;
    private final ProtectionDomain pd;
    private final String name;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
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
                if (slots == null) {
                    slots = pd.allocateMemory((long) SLOTS * SLOT_BYTES, EnumSet.of(AccessFlag.LOCAL_WRITE),
                            name + "/bounce");
                    for (int i = 0; i < SLOTS; i++) {
                        free.add(i);
                    }
                }
                Integer slot = free.pollFirst();
                if (slot != null) {
                    long offset = (long) slot * SLOT_BYTES;
                    return new Bounce(slots, offset, slots.segment().asSlice(offset, bytes), slot);
                }
            }
        }
        MemoryRegion own = pd.allocateMemory(bytes, EnumSet.of(AccessFlag.LOCAL_WRITE), name + "/bounce-" + bytes);
        return new Bounce(own, 0, own.segment().asSlice(0, bytes), -1);
    }

    void give(Bounce b) {
        if (b.slot() < 0) {
            connection.deregisterQuietly(b.region());
            return;
        }
        synchronized (this) {
            if (!released) {
                free.add(b.slot());
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
            free.clear();
        }
        connection.deregisterQuietly(r);
    }

}
