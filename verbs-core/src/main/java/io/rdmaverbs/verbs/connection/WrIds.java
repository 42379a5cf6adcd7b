package io.rdmaverbs.verbs.connection;

/**
 * The work request ids a {@link Session} posts: a 4-bit tag saying what the request is, and 60 bits of
 * what it refers to (a receive buffer's index, a send slot, a read's transfer and chunk, a one-sided
 * operation), so that a completion finds its owner without a lookup of the id itself.
 */
final class WrIds {

    static final int RECEIVE = 1;
    static final int SEND = 2;
    static final int READ = 3;
    static final int ONE_SIDED = 4;

    private static final int SHIFT = 60;
    private static final long VALUE = (1L << SHIFT) - 1;

    private WrIds() {
    }

    static long of(int tag, long value) {
        return ((long) tag << SHIFT) | (value & VALUE);
    }

    static int tag(long wrId) {
        return (int) (wrId >>> SHIFT);
    }

    static long value(long wrId) {
        return wrId & VALUE;
    }
}
