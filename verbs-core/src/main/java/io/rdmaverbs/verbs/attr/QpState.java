package io.rdmaverbs.verbs.attr;

/** {@code enum ibv_qp_state}. */
public enum QpState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERR, UNKNOWN;

    public static QpState of(int value) {
        QpState[] all = values();
        return value >= 0 && value < all.length ? all[value] : UNKNOWN;
    }
}
