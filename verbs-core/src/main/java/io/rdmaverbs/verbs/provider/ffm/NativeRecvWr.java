package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.provider.RecvWr;

/** One {@code struct ibv_recv_wr} with its scatter/gather list, for QPs and SRQs alike. */
final class NativeRecvWr extends NativeWorkRequest implements RecvWr {

    NativeRecvWr(int maxSge) {
        super(IbvRecvWr.LAYOUT, maxSge);
    }

    /** A slot of a {@link NativeWrChain}. */
    NativeRecvWr(int maxSge, Arena arena, MemorySegment slot, MemorySegment badWr) {
        super(IbvRecvWr.LAYOUT, maxSge, arena, slot, badWr);
    }

    @Override
    Field.OfLong wrIdField() {
        return IbvRecvWr.WR_ID;
    }

    @Override
    Field.OfAddress sgListField() {
        return IbvRecvWr.SG_LIST;
    }

    @Override
    Field.OfAddress nextField() {
        return IbvRecvWr.NEXT;
    }

    @Override
    Field.OfInt numSgeField() {
        return IbvRecvWr.NUM_SGE;
    }
}
