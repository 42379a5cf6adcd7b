package io.rdmaverbs.verbs.attr;

/** {@code enum ibv_qp_type}, the transport services the project manages. */
public enum QpType {
    RC(2), UC(3), UD(4), XRC_SEND(9), XRC_RECV(10);

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    public static QpType of(int value) {
        for (QpType t : values()) {
            if (t.value == value) {
                return t;
            }
        }
        throw new IllegalArgumentException("unsupported ibv_qp_type " + value);
    }

    /** XRC QP types need an XRC-capable device. */
    public boolean isXrc() {
        return this == XRC_SEND || this == XRC_RECV;
    }
}
