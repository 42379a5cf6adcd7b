package io.rdmaverbs.verbs.attr;

/** {@code struct ibv_qp_cap}: requested at create, and the actual values the provider granted. */
public record QpCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {

    public QpCapabilities {
        requireNonNegative("maxSendWr", maxSendWr);
        requireNonNegative("maxRecvWr", maxRecvWr);
        requireNonNegative("maxSendSge", maxSendSge);
        requireNonNegative("maxRecvSge", maxRecvSge);
        requireNonNegative("maxInlineData", maxInlineData);
    }

    public static QpCapabilities of(int maxSendWr, int maxRecvWr) {
        return new QpCapabilities(maxSendWr, maxRecvWr, 1, 1, 0);
    }

    private static void requireNonNegative(String name, int v) {
        if (v < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, was " + v);
        }
    }
}
