package io.rdmaverbs.verbs.attr;

import org.jspecify.annotations.Nullable;

/**
 * {@code struct ibv_ah_attr}: where packets go. Used for an address handle (UD) and for the path of
 * a connected QP in the INIT→RTR transition.
 */
public record AddressVector(int destinationLid, int serviceLevel, int sourcePathBits, int staticRate, int portNumber,
        @Nullable GlobalRoute globalRoute) {

    public AddressVector {
        if (portNumber < 1 || portNumber > 255) {
            throw new IllegalArgumentException("portNumber must be 1..255, was " + portNumber);
        }
        if (destinationLid < 0 || destinationLid > 0xffff) {
            throw new IllegalArgumentException("destinationLid must be 0..65535, was " + destinationLid);
        }
        if (serviceLevel < 0 || serviceLevel > 15) {
            throw new IllegalArgumentException("serviceLevel must be 0..15, was " + serviceLevel);
        }
    }

    /** A RoCE address: no LID, the destination GID through the local GID at {@code sourceGidIndex}. */
    public static AddressVector roce(int port, Gid destination, int sourceGidIndex) {
        return new AddressVector(0, 0, 0, 0, port, GlobalRoute.to(destination, sourceGidIndex));
    }

    /** An InfiniBand address by LID, without a GRH. */
    public static AddressVector infiniband(int port, int lid) {
        return new AddressVector(lid, 0, 0, 0, port, null);
    }

    public boolean isGlobal() {
        return globalRoute != null;
    }
}
