package io.rdmaverbs.verbs.attr;

/**
 * {@code struct ibv_global_route}: the GRH fields of an address vector. Mandatory on RoCE, where the
 * destination is a GID rather than a LID.
 */
public record GlobalRoute(Gid destinationGid, int flowLabel, int sourceGidIndex, int hopLimit, int trafficClass) {

    public GlobalRoute {
        if (sourceGidIndex < 0 || sourceGidIndex > 255) {
            throw new IllegalArgumentException("sourceGidIndex must be 0..255, was " + sourceGidIndex);
        }
        if (hopLimit < 0 || hopLimit > 255) {
            throw new IllegalArgumentException("hopLimit must be 0..255, was " + hopLimit);
        }
        if (trafficClass < 0 || trafficClass > 255) {
            throw new IllegalArgumentException("trafficClass must be 0..255, was " + trafficClass);
        }
    }

    /** A route to {@code gid} from the local GID at {@code sourceGidIndex}, hop limit 1 (same link). */
    public static GlobalRoute to(Gid gid, int sourceGidIndex) {
        return new GlobalRoute(gid, 0, sourceGidIndex, 1, 0);
    }
}
