package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.AhHandle;

/**
 * An address handle. Its parent names the device in error messages. A UD post and {@code wr_set_ud_addr}
 * read it (rxe and mlx5 copy its address vector into the WQE), so they hold one of its {@link #calls() guards}
 * for the call, and {@code destroyAh} quiesces them first, as {@code destroyQp} does a QP's.
 */
final class NativeAh extends NativeHandle implements AhHandle {

    private final NativePd pd;
    /** What posts naming this AH hold while in flight; {@code destroyAh} quiesces them first. */
    private final CallGuards calls = new CallGuards();
    /** What {@code ibv_wr_set_ud_addr} holds while it reads this AH: one of {@link #calls}. */
    private final CallGuards.Sole udAddressing = new CallGuards.Sole(this, calls);

    NativeAh(NativeVerbsProvider provider, MemorySegment pointer, NativePd pd) {
        super(provider, "ibv_ah", pointer);
        this.pd = pd;
    }

    NativePd pd() {
        return pd;
    }

    CallGuards calls() {
        return calls;
    }

    CallGuards.Sole udAddressing() {
        return udAddressing;
    }
}
