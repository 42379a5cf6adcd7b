package io.rdmaverbs.verbs.attr;

/** The parts of {@code struct ibv_port_attr} (from {@code ibv_query_port}) the project reports. */
public record PortAttributes(
        int portNumber,
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int gidTableLength,
        int portCapFlags,
        int maxMessageSize,
        int pkeyTableLength,
        int lid,
        int smLid,
        int lmc,
        int activeWidth,
        int activeSpeed,
        int physicalState,
        LinkLayer linkLayer) {

    public boolean isActive() {
        return state == PortState.ACTIVE;
    }
}
