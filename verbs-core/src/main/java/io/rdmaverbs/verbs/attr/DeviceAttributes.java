package io.rdmaverbs.verbs.attr;

/**
 * The parts of {@code struct ibv_device_attr} (from {@code ibv_query_device}) the resource model
 * uses to enforce limits before a native call, plus the context's {@code num_comp_vectors}.
 *
 * @param atomicCap {@code atomic_cap}: atomic work requests are refused in Java when it is
 *        {@link AtomicCapability#NONE}
 */
public record DeviceAttributes(
        String firmwareVersion,
        long nodeGuid,
        long sysImageGuid,
        long maxMrSize,
        long pageSizeCap,
        int vendorId,
        int vendorPartId,
        int hardwareVersion,
        int maxQp,
        int maxQpWr,
        int deviceCapFlags,
        int maxSge,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        int maxAh,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxMcastGrp,
        int maxMcastQpAttach,
        int physPortCount,
        int numCompVectors,
        AtomicCapability atomicCap) {

    /** {@code IBV_DEVICE_XRC}. */
    public static final int CAP_XRC = 1 << 20;

    /** Whether the device executes atomic work requests ({@code atomic_cap} is not {@code IBV_ATOMIC_NONE}). */
    public boolean supportsAtomics() {
        return atomicCap != AtomicCapability.NONE;
    }

    /** Whether the device advertises XRC ({@code IBV_DEVICE_XRC}); soft-RoCE does not. */
    public boolean supportsXrc() {
        return (deviceCapFlags & CAP_XRC) != 0;
    }
}
