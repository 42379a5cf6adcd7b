package io.rdmaverbs.verbs.attr;

/** {@code enum ibv_port_state}. */
public enum PortState {
    NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER;

    public static PortState of(int value) {
        PortState[] all = values();
        return value >= 0 && value < all.length ? all[value] : NOP;
    }
}
