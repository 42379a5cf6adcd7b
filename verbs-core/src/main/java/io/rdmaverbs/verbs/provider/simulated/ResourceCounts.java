package io.rdmaverbs.verbs.provider.simulated;

/**
 * Live kernel objects of one device, like {@code rdma resource show}: objects of closed contexts that
 * were leaked are included, an XRC receive QP opened by several contexts counts once, and an XRC domain
 * shared by several contexts counts once.
 */
public record ResourceCounts(String device, int contexts, int pds, int xrcds, int compChannels, int cqs, int srqs,
        int qps, int mrs, int ahs) {

    /** All objects except contexts. */
    public int objects() {
        return pds + xrcds + compChannels + cqs + srqs + qps + mrs + ahs;
    }
}
