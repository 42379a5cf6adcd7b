package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.provider.RecvWr;

/** {@link RecvWr}: nothing but the id and the scatter/gather list. */
final class SimRecvWr extends SimWorkRequest implements RecvWr {

    SimRecvWr(SimulatedProvider provider, int maxSge) {
        super(provider, maxSge, "receive");
    }
}
