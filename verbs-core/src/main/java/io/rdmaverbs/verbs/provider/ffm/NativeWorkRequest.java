package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.Objects;

import io.rdmaverbs.verbs.provider.WorkRequest;

import org.jspecify.annotations.Nullable;

/**
 * One work request struct ({@code ibv_send_wr} or {@code ibv_recv_wr}), its {@code ibv_sge[maxSge]}
 * right behind it (with {@code sg_list} pointing there) and the {@code bad_wr} out-pointer, in one
 * off-heap segment: setters write the C struct directly and posting passes it as it is. Both structs
 * begin with {@code wr_id}, {@code next}, {@code sg_list}, {@code num_sge} at the same offsets (the ABI
 * test checks both), which is what this class handles.
 *
 * <p>A post to a QP or SRQ passes the queue and all of this as bare addresses, under the {@link CallGuard}
 * of this request on that queue (made at its first post to it), which guards the queue and this memory
 * alike.
 * Closing the request retires its guards first.
 */
abstract sealed class NativeWorkRequest implements WorkRequest permits NativeSendWr, NativeRecvWr {

    private final Arena arena;
    /** False for a slot of a {@link NativeWrChain}: the chain owns the arena and closes it. */
    private final boolean ownsArena;
    private final int maxSge;
    private final String struct;
    final MemorySegment wr;
    private final MemorySegment sgList;
    private final MemorySegment badWr;
    private final CallBindings<Bound> bindings = new CallBindings<>();
    /** The guards by which posts of this request hold what they read besides the queue (a UD send's AH). */
    private final CallBindings<Held> held = new CallBindings<>();

    /**
     * What a post to one QP or SRQ passes, under {@code guard}: the queue, the request (or a chain's head)
     * and its out-slots by bare address.
     */
    record Bound(CallGuard guard, long qpPointer, long wr, long badWr)
            implements CallBindings.Binding {

        /** A new guard on {@code queue} and the bare addresses of what a post to it passes. */
        static Bound open(NativeHandle queue, CallGuards calls, MemorySegment wr, MemorySegment badWr) {
            return new Bound(calls.open(queue), queue.objectAddress(), wr.address(), badWr.address());
        }
    }

    /** A guard on an object a post reads besides its queue, and nothing to pass. */
    record Held(CallGuard guard) implements CallBindings.Binding {
    }

    NativeWorkRequest(StructLayout layout, int maxSge) {
        if (maxSge < 0) {
            throw new IllegalArgumentException("maxSge must be >= 0, was " + maxSge);
        }
        this.arena = Arena.ofShared();
        this.ownsArena = true;
        this.maxSge = maxSge;
        this.struct = layout.name().orElseThrow();
        long sgOffset = layout.byteSize();
        long badWrOffset = sgOffset + maxSge * IbvSge.SIZE;
        MemorySegment all = arena.allocate(badWrOffset + ADDRESS.byteSize(), layout.byteAlignment());
        this.wr = all.asSlice(0, layout.byteSize());
        this.sgList = all.asSlice(sgOffset, maxSge * IbvSge.SIZE);
        this.badWr = all.asSlice(badWrOffset, ADDRESS.byteSize());
        clear();
    }

    /**
     * A slot of a chain: {@code slot} holds the struct followed by its {@code maxSge} entries, inside
     * the chain's {@code arena}; the chain's {@code bad_wr} slot serves every slot.
     */
    NativeWorkRequest(StructLayout layout, int maxSge, Arena arena, MemorySegment slot, MemorySegment badWr) {
        this.arena = arena;
        this.ownsArena = false;
        this.maxSge = maxSge;
        this.struct = layout.name().orElseThrow();
        this.wr = slot.asSlice(0, layout.byteSize());
        this.sgList = slot.asSlice(layout.byteSize(), maxSge * IbvSge.SIZE);
        this.badWr = badWr;
        clear();
    }

    /** The bytes one chain slot takes: the struct and its entries (both multiples of 8 bytes). */
    static long slotSize(StructLayout layout, int maxSge) {
        return layout.byteSize() + maxSge * IbvSge.SIZE;
    }

    /** The struct pointer to post. */
    final MemorySegment wr() {
        return wr;
    }

    /** The {@code bad_wr} out-pointer to post with. */
    final MemorySegment badWr() {
        return badWr;
    }

    /*
     * The members every work request has, as each subclass's static constants: a Field held in an
     * instance field is no constant to the JIT, and its layout then costs a lookup on every post
     * (sgeCount is read by every post's checks: 1.6-2.1 ns per post through the API, measured).
     */
    abstract Field.OfLong wrIdField();

    abstract Field.OfAddress sgListField();

    abstract Field.OfAddress nextField();

    abstract Field.OfInt numSgeField();

    final boolean isClosed() {
        return !arena.scope().isAlive();
    }

    /** Why a post under {@code guard} was refused: this request closed, or the QP's destroy began. */
    final IllegalStateException refusal(CallGuard guard) {
        return guard.isRetired() ? new IllegalStateException(this + " was already closed")
                : CallGuards.refusal(guard.target());
    }

    /**
     * What a post to {@code queue} (a QP, or an SRQ) passes, and its guard, one of {@code calls}: made at
     * the first post to {@code queue}.
     */
    final Bound boundTo(NativeHandle queue, CallGuards calls) {
        Bound b = bindings.find(queue);
        return b != null ? b : bind(queue, calls);
    }

    private synchronized Bound bind(NativeHandle queue, CallGuards calls) {
        if (isClosed()) {
            throw new IllegalStateException(this + " was already closed");
        }
        Bound b = bindings.find(queue);
        if (b == null) {
            b = Bound.open(queue, calls, wr, badWr);
            bindings.add(b);
        }
        return b;
    }

    /**
     * The guard by which a post of this request holds {@code object} (an address handle the provider reads
     * during the post), one of {@code calls}: made at the first post naming it.
     */
    final CallGuard holding(NativeHandle object, CallGuards calls) {
        Held h = held.find(object);
        return h != null ? h.guard() : hold(object, calls);
    }

    private synchronized CallGuard hold(NativeHandle object, CallGuards calls) {
        if (isClosed()) {
            throw new IllegalStateException(this + " was already closed");
        }
        Held h = held.find(object);
        if (h == null) {
            h = new Held(calls.open(object));
            held.add(h);
        }
        return h.guard();
    }

    /** Retires the guards of {@link #holding}: this request's or, for a chain's slot, the chain's close. */
    final synchronized void retireHolds() {
        held.retireAll();
    }

    @Override
    public final int maxSge() {
        return maxSge;
    }

    /** Keeps {@code next}: a chain's links are the chain's, not the request's. */
    @Override
    public void clear() {
        MemorySegment next = nextField().get(wr);
        wr.fill((byte) 0);
        sgList.fill((byte) 0);
        sgListField().set(wr, sgList);
        nextField().set(wr, next);
    }

    /** Links this request to {@code following}, or ends the chain here ({@code null}). */
    final void linkTo(@Nullable NativeWorkRequest following) {
        nextField().set(wr, following == null ? MemorySegment.NULL : following.wr);
    }

    @Override
    public final void wrId(long id) {
        wrIdField().set(wr, id);
    }

    @Override
    public final long wrId() {
        return wrIdField().get(wr);
    }

    @Override
    public final void sge(int index, long address, int length, int lkey) {
        long at = Objects.checkIndex(index, maxSge) * IbvSge.SIZE;
        IbvSge.ADDR.set(sgList, at, address);
        IbvSge.LENGTH.set(sgList, at, length);
        IbvSge.LKEY.set(sgList, at, lkey);
    }

    @Override
    public final void sgeCount(int count) {
        numSgeField().set(wr, Objects.checkIndex(count, maxSge + 1));
    }

    @Override
    public final int sgeCount() {
        return numSgeField().get(wr);
    }

    @Override
    public final long sgeAddress(int index) {
        return IbvSge.ADDR.get(sgList, Objects.checkIndex(index, maxSge) * IbvSge.SIZE);
    }

    @Override
    public final int sgeLength(int index) {
        return IbvSge.LENGTH.get(sgList, Objects.checkIndex(index, maxSge) * IbvSge.SIZE);
    }

    @Override
    public final int sgeLkey(int index) {
        return IbvSge.LKEY.get(sgList, Objects.checkIndex(index, maxSge) * IbvSge.SIZE);
    }

    @Override
    public final synchronized void close() {
        if (!ownsArena) {
            throw new IllegalStateException(this + " is a slot of a chain: close the chain");
        }
        if (arena.scope().isAlive()) {
            bindings.retireAll();
            held.retireAll();
            arena.close();
        }
    }

    @Override
    public final String toString() {
        return struct + "@0x" + Long.toHexString(wr.address()) + (isClosed() ? " (closed)" : "");
    }
}
