package io.rdmaverbs.verbs.provider.simulated;

/** A receive WR as the queue holds it: a copy of the caller's reusable {@link SimRecvWr} at post time. */
record PostedRecv(long wrId, long[] addresses, int[] lengths, int[] lkeys) {

    static PostedRecv of(SimRecvWr wr) {
        int n = wr.sgeCount();
        long[] addresses = new long[n];
        int[] lengths = new int[n];
        int[] lkeys = new int[n];
        for (int i = 0; i < n; i++) {
            addresses[i] = wr.sgeAddress(i);
            lengths[i] = wr.sgeLength(i);
            lkeys[i] = wr.sgeLkey(i);
        }
        return new PostedRecv(wr.wrId(), addresses, lengths, lkeys);
    }

    long capacity() {
        long total = 0;
        for (int length : lengths) {
            total += Integer.toUnsignedLong(length);
        }
        return total;
    }
}
