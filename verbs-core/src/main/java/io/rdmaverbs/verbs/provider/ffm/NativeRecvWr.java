package io.rdmaverbs.verbs.provider.ffm;

import io.rdmaverbs.verbs.provider.RecvWr;

/** One {@code struct ibv_recv_wr} with its scatter/gather list, for QPs and SRQs alike. */
final class NativeRecvWr extends NativeWorkRequest implements RecvWr {

    NativeRecvWr(int maxSge) {
        super(IbvRecvWr.LAYOUT, IbvRecvWr.WR_ID, IbvRecvWr.SG_LIST, IbvRecvWr.NUM_SGE, maxSge);
    }
}
