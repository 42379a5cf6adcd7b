package io.rdmaverbs.verbs.attr;

/** {@code enum ibv_wr_opcode}: what a send work request asks the device to do. */
public enum SendOpcode {
    RDMA_WRITE(0), RDMA_WRITE_WITH_IMM(1), SEND(2), SEND_WITH_IMM(3), RDMA_READ(4),
    ATOMIC_CMP_AND_SWP(5), ATOMIC_FETCH_AND_ADD(6);

    private final int value;

    SendOpcode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    public static SendOpcode of(int value) {
        for (SendOpcode o : values()) {
            if (o.value == value) {
                return o;
            }
        }
        throw new IllegalArgumentException("unsupported ibv_wr_opcode " + value);
    }

    public boolean carriesImmediate() {
        return this == RDMA_WRITE_WITH_IMM || this == SEND_WITH_IMM;
    }

    public boolean isRdma() {
        return this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM || this == RDMA_READ;
    }

    /** The opcode of the sender's completion for this request. */
    public WcOpcode completionOpcode() {
        return switch (this) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case SEND, SEND_WITH_IMM -> WcOpcode.SEND;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
        };
    }
}
