package io.rdmaverbs.verbs.provider.ffm;

import io.rdmaverbs.verbs.provider.RecvWr;

/** One {@code struct ibv_recv_wr} with its scatter/gather list, for QPs and SRQs alike. */
final class NativeRecvWr extends NativeWorkRequest implements RecvWr {

    NativeRecvWr(int maxSge) {
        super(IbvRecvWr.LAYOUT, maxSge);
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
    Field.OfInt numSgeField() {
        return IbvRecvWr.NUM_SGE;
    }
}
