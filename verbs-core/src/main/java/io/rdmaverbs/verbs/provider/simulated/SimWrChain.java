package io.rdmaverbs.verbs.provider.simulated;

import java.util.Objects;
import java.util.function.Supplier;

import io.rdmaverbs.verbs.provider.WorkRequest;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

/**
 * A chain of simulated work requests: its slots, and how many of them from slot 0 the next post walks
 * (the {@code next} links of the native structs, as a length). A post reads each slot as the kernel's
 * post path reads each WR.
 */
final class SimWrChain<W extends WorkRequest> implements WorkRequestChain<W> {

    final SimulatedProvider provider;
    private final SimWorkRequest[] slots;
    private int length;
    private boolean closed;

    SimWrChain(SimulatedProvider provider, int capacity, Supplier<SimWorkRequest> slot) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a chain needs at least one request, asked for " + capacity);
        }
        this.provider = provider;
        this.slots = new SimWorkRequest[capacity];
        for (int i = 0; i < capacity; i++) {
            slots[i] = slot.get();
            slots[i].ownedByChain();
        }
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

    /** Slot {@code index} as the simulator's own request class. */
    SimWorkRequest slot(int index) {
        return slots[index];
    }

    @Override
    public void length(int newLength) {
        Objects.checkIndex(newLength, slots.length + 1);
        length = newLength;
    }

    @Override
    public int length() {
        return length;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            for (SimWorkRequest slot : slots) {
                slot.closeWithChain();
            }
        }
    }
}
