package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.Objects;

import io.rdmaverbs.verbs.provider.WorkRequest;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

/**
 * {@code capacity} work request structs, each with its scatter/gather list, back to back in one
 * off-heap segment with one {@code bad_wr} out-pointer: the chain {@code ibv_post_send(3)} walks
 * through the {@code next} links. Every slot is linked to the following one from creation;
 * {@link #length(int)} only moves the NULL that ends the chain, so changing the length is two stores
 * and posting passes slot 0 as it is. The failing request's index is where {@code bad_wr} points,
 * divided by the slot size.
 *
 * <p>Posted as a single request is ({@link NativeWorkRequest}): the queue, the head and the out-slots as
 * bare addresses, under the chain's {@link CallGuard} on that queue, made at its first post there; closing
 * the chain retires its guards before its memory goes.
 */
final class NativeWrChain<W extends WorkRequest> implements WorkRequestChain<W> {

    /** Makes the request of one slot: a {@link NativeSendWr} or {@link NativeRecvWr} over the slot's bytes. */
    @FunctionalInterface
    interface Slots {
        NativeWorkRequest slot(Arena arena, MemorySegment slot, MemorySegment badWr);
    }

    private final Arena arena = Arena.ofShared();
    private final String struct;
    private final long slotSize;
    private final MemorySegment base;
    private final MemorySegment badWr;
    private final NativeWorkRequest[] slots;
    /** The slots' class, {@link NativeSendWr} or {@link NativeRecvWr}: what a post checks the chain is. */
    private final Class<? extends NativeWorkRequest> slotKind;
    private final CallBindings<NativeWorkRequest.Bound> bindings = new CallBindings<>();
    private int length;

    NativeWrChain(StructLayout layout, int capacity, int maxSge, Slots factory) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a chain needs at least one request, asked for " + capacity);
        }
        if (maxSge < 0) {
            throw new IllegalArgumentException("maxSge must be >= 0, was " + maxSge);
        }
        this.struct = layout.name().orElseThrow();
        this.slotSize = NativeWorkRequest.slotSize(layout, maxSge);
        this.base = arena.allocate(slotSize * capacity, layout.byteAlignment());
        this.badWr = arena.allocate(ADDRESS);
        this.slots = new NativeWorkRequest[capacity];
        for (int i = 0; i < capacity; i++) {
            slots[i] = factory.slot(arena, base.asSlice(i * slotSize, slotSize), badWr);
        }
        for (int i = 0; i < capacity; i++) {
            slots[i].linkTo(i + 1 < capacity ? slots[i + 1] : null);
        }
        this.slotKind = slots[0].getClass();
        length(0);
    }

    @Override
    public int capacity() {
        return slots.length;
    }

    @Override
    @SuppressWarnings("unchecked")
    public W request(int index) {
        return (W) slots[Objects.checkIndex(index, slots.length)];
    }

    @Override
    public void length(int newLength) {
        Objects.checkIndex(newLength, slots.length + 1);
        if (length > 0 && length < slots.length) {
            slots[length - 1].linkTo(slots[length]);
        }
        if (newLength > 0) {
            slots[newLength - 1].linkTo(null);
        }
        length = newLength;
    }

    @Override
    public int length() {
        return length;
    }

    /** Whether the slots are {@code kind}'s: a send or a receive chain. */
    boolean holds(Class<? extends NativeWorkRequest> kind) {
        return slotKind == kind;
    }

    /** Slot {@code index} as the provider's own request class. */
    NativeWorkRequest slot(int index) {
        return slots[index];
    }

    /** What a post of the chain to {@code queue} passes (the head, slot 0), and its guard, one of {@code calls}. */
    NativeWorkRequest.Bound boundTo(NativeHandle queue, CallGuards calls) {
        NativeWorkRequest.Bound b = bindings.find(queue);
        return b != null ? b : bind(queue, calls);
    }

    private synchronized NativeWorkRequest.Bound bind(NativeHandle queue, CallGuards calls) {
        if (isClosed()) {
            throw new IllegalStateException(this + " was already closed");
        }
        NativeWorkRequest.Bound b = bindings.find(queue);
        if (b == null) {
            b = NativeWorkRequest.Bound.open(queue, calls, slots[0].wr(), badWr);
            bindings.add(b);
        }
        return b;
    }

    /** Why a post under {@code guard} was refused: this chain closed, or the queue's destroy began. */
    IllegalStateException refusal(CallGuard guard) {
        return guard.isRetired() ? new IllegalStateException(this + " was already closed")
                : CallGuards.refusal(guard.target());
    }

    /**
     * Which request {@code bad_wr} names after a failed post; 0 when the provider left it NULL (it failed
     * the whole call, as rxe's doorbell does for a QP not ready to send) or pointed outside the chain.
     */
    int failedIndex() {
        long bad = badWr.get(ADDRESS, 0).address();
        long offset = bad - base.address();
        if (bad == 0 || offset < 0 || offset >= slotSize * length || offset % slotSize != 0) {
            return 0;
        }
        return (int) (offset / slotSize);
    }

    boolean isClosed() {
        return !arena.scope().isAlive();
    }

    @Override
    public synchronized void close() {
        if (arena.scope().isAlive()) {
            bindings.retireAll();
            for (NativeWorkRequest slot : slots) {
                slot.retireHolds();
            }
            arena.close();
        }
    }

    @Override
    public String toString() {
        return struct + "[" + slots.length + "]@0x" + Long.toHexString(base.address())
                + (isClosed() ? " (closed)" : "");
    }
}
