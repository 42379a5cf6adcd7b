package io.rdmaverbs.verbs.attr;

/**
 * {@code enum ibv_atomic_cap}: whether a device executes the atomic work requests (fetch-and-add,
 * compare-and-swap) and how far their atomicity reaches ({@code ibv_query_device(3)}'s
 * {@code atomic_cap}).
 */
public enum AtomicCapability {
    /** {@code IBV_ATOMIC_NONE}: atomics are not supported. */
    NONE(0),
    /** {@code IBV_ATOMIC_HCA}: atomic among the operations of this device. */
    HCA(1),
    /** {@code IBV_ATOMIC_GLOB}: atomic also against the CPUs and other devices. */
    GLOB(2);

    private final int value;

    AtomicCapability(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** The capability of {@code value}; an unknown value reads as {@link #NONE}, the safe answer. */
    public static AtomicCapability of(int value) {
        for (AtomicCapability c : values()) {
            if (c.value == value) {
                return c;
            }
        }
        return NONE;
    }
}
