package io.rdmaverbs.verbs.attr;

/** {@code enum ibv_wc_opcode}. Receive completions have bit 7 set. */
public enum WcOpcode {
    SEND(0), RDMA_WRITE(1), RDMA_READ(2), COMP_SWAP(3), FETCH_ADD(4), BIND_MW(5), LOCAL_INV(6), TSO(7),
    ATOMIC_WRITE(9), RECV(128), RECV_RDMA_WITH_IMM(129), UNKNOWN(-1);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    public boolean isReceive() {
        return value >= 128;
    }

    public static WcOpcode of(int value) {
        return switch (value) {
            case 0 -> SEND;
            case 1 -> RDMA_WRITE;
            case 2 -> RDMA_READ;
            case 3 -> COMP_SWAP;
            case 4 -> FETCH_ADD;
            case 5 -> BIND_MW;
            case 6 -> LOCAL_INV;
            case 7 -> TSO;
            case 9 -> ATOMIC_WRITE;
            case 128 -> RECV;
            case 129 -> RECV_RDMA_WITH_IMM;
            default -> UNKNOWN;
        };
    }
}
