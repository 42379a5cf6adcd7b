package io.rdmaverbs.verbs.provider.simulated;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

import io.rdmaverbs.verbs.attr.AtomicCapability;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.NodeType;
import io.rdmaverbs.verbs.attr.PortState;

/**
 * What a simulated device is: its identity, the limits and capability flags {@code ibv_query_device}
 * reports, its ports, and the {@link Driver} whose answers it reproduces. Start from {@link #rxe} or
 * {@link #mlx5} and adjust with {@link #toBuilder()}, e.g. to make a limit small enough to reach.
 *
 * @param maxInlineData the largest {@code max_inline_data} {@code ibv_create_qp} accepts (not part of
 *        {@code ibv_device_attr}; rxe's {@code RXE_MAX_INLINE_DATA})
 * @param onDemandPaging whether {@code IBV_ACCESS_ON_DEMAND} registrations are supported
 */
public record DeviceProfile(String name, long guid, NodeType nodeType, Driver driver, DeviceAttributes attributes,
        int maxInlineData, boolean onDemandPaging, List<Port> ports) {

    /**
     * One port as {@code ibv_query_port} reports it, with its GID table: {@code gids} are the populated
     * entries from index 0; the others up to {@code gidTableLength} read as zero.
     */
    public record Port(PortState state, Mtu maxMtu, Mtu activeMtu, LinkLayer linkLayer, int lid, int smLid,
            int gidTableLength, List<Gid> gids, int portCapFlags, int maxMessageSize, int pkeyTableLength,
            int activeWidth, int activeSpeed) {

        public Port {
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(linkLayer, "linkLayer");
            gids = List.copyOf(gids);
            if (gids.size() > gidTableLength) {
                throw new IllegalArgumentException("more GIDs (" + gids.size() + ") than the table holds ("
                        + gidTableLength + ")");
            }
            if (lid < 0 || lid > 0xffff) {
                throw new IllegalArgumentException("lid must be 0..65535, was " + lid);
            }
        }

        /** The GID at {@code index}, zero for an empty entry. */
        public Gid gid(int index) {
            return index < gids.size() ? gids.get(index) : Gid.ZERO;
        }

        public Port withState(PortState newState) {
            return new Port(newState, maxMtu, activeMtu, linkLayer, lid, smLid, gidTableLength, gids, portCapFlags,
                    maxMessageSize, pkeyTableLength, activeWidth, activeSpeed);
        }
    }

    public DeviceProfile {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a device needs a name");
        }
        Objects.requireNonNull(nodeType, "nodeType");
        Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(attributes, "attributes");
        ports = List.copyOf(ports);
        if (ports.isEmpty()) {
            throw new IllegalArgumentException("a device needs at least one port");
        }
        if (attributes.physPortCount() != ports.size()) {
            throw new IllegalArgumentException("phys_port_cnt " + attributes.physPortCount() + " but "
                    + ports.size() + " ports were described");
        }
        if (attributes.numCompVectors() < 1) {
            throw new IllegalArgumentException("num_comp_vectors must be at least 1");
        }
    }

    /**
     * Soft-RoCE ({@code rdma_rxe}) on a netdev with MTU 1500, as kernel 6.1.0 and rdma-core 44 report it.
     *
     * <p>These are the numbers {@code ibv_devinfo -v} printed for {@code rxe0} in the project's soft-RoCE
     * harness (Debian 6.1.0-57, 2 vCPUs), which differ from older {@code rxe_param.h} tables (0x10000
     * QPs, 0x4000 WRs, 0x7ffc PDs...) still quoted widely: 5.14 raised most of them to 2^20. RoCE v2 over
     * IPv6 link-local only, so GID[0] is {@code fe80::} + the node GUID and the rest of the 1024-entry
     * table is empty. This method is the one place to recalibrate them.
     *
     * <p>It follows 6.1: Debian's 6.12.117, the harness's second kernel, reports two values otherwise
     * (docs/softroce.md, "Two kernels"): the port's {@code max_msg_sz} is 0x80000000 (2 GiB, not 8 MiB),
     * and {@code ibv_query_device_ex}'s {@code device_cap_flags_ex}, which this profile does not model,
     * also has bits 38-40 (0x1C000000000: the flush and atomic-write capabilities rxe gained after 6.1,
     * which rdma-core 44 does not name).
     */
    public static DeviceProfile rxe(String name) {
        long mac = macFor(name);
        long guid = eui64(mac);
        DeviceAttributes attributes = new DeviceAttributes(
                "0.0.0", guid, guid,
                -1L,            // max_mr_size
                0xfffff000L,    // page_size_cap
                0xffffff, 0, 0, // vendor_id, vendor_part_id, hw_ver
                1048560,        // max_qp (2^20 - RXE_MIN_QP_INDEX)
                1048576,        // max_qp_wr
                0x01223c76,     // device_cap_flags: no IBV_DEVICE_XRC
                32,             // max_sge (send and recv)
                1048576,        // max_cq
                32767,          // max_cqe (2^15 - 1)
                524287,         // max_mr
                1048576,        // max_pd
                128, 128,       // max_qp_rd_atom, max_qp_init_rd_atom
                32767,          // max_ah
                917503,         // max_srq
                1048576,        // max_srq_wr
                27,             // max_srq_sge
                8192, 56,       // max_mcast_grp, max_mcast_qp_attach
                1,              // phys_port_cnt
                2,              // num_comp_vectors: one per CPU of the 2-vCPU guest
                AtomicCapability.HCA); // rxe_param.h: RXE_ATOMIC_CAP
        Port port = new Port(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_1024, LinkLayer.ETHERNET, 0, 0, 1024,
                List.of(new Gid(0xfe80_0000_0000_0000L, guid)), 0x00010000, 0x800000, 1, 1, 1);
        return new DeviceProfile(name, guid, NodeType.CA, Driver.RXE, attributes, 512, false, List.of(port));
    }

    /**
     * A ConnectX-5 class HCA ({@code mlx5_ib}) in Ethernet (RoCE) mode, with XRC: an assumed, typical set
     * of limits, not calibrated against hardware. Addressing works as on soft-RoCE (GRH to a link-local
     * GID; GID[0] and GID[1] are the RoCE v1 and v2 entries of the same address), so scenarios written
     * for {@link #rxe} run unchanged; see {@link #mlx5Infiniband} for LID addressing.
     */
    public static DeviceProfile mlx5(String name) {
        long hash = fnv1a(name);
        long mac = 0x0c42_a100_0000L | (hash & 0xff_ffffL);
        long guid = 0x0c42_a103_0000_0000L | (hash & 0xff_ffffL);
        Gid gid = new Gid(0xfe80_0000_0000_0000L, eui64(mac));
        Port port = new Port(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_1024, LinkLayer.ETHERNET, 0, 0, 256,
                List.of(gid, gid), 0x04010000, 0x40000000, 1, 2, 32);
        return new DeviceProfile(name, guid, NodeType.CA, Driver.MLX5, mlx5Attributes(guid), 912, true, List.of(port));
    }

    /**
     * The same HCA on an InfiniBand fabric: the port has a unicast LID (from the name) and an SM, GID[0]
     * is {@code fe80::} + the port GUID, and paths may use the LID without a GRH.
     */
    public static DeviceProfile mlx5Infiniband(String name) {
        long hash = fnv1a(name);
        long guid = 0x0c42_a103_0000_0000L | (hash & 0xff_ffffL);
        int lid = 1 + (int) Long.remainderUnsigned(hash >>> 24, 0xbffe);
        Port port = new Port(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_4096, LinkLayer.INFINIBAND, lid, 1, 128,
                List.of(new Gid(0xfe80_0000_0000_0000L, guid)), 0x2651e848, 0x40000000, 128, 2, 32);
        return new DeviceProfile(name, guid, NodeType.CA, Driver.MLX5, mlx5Attributes(guid), 912, true, List.of(port));
    }

    private static DeviceAttributes mlx5Attributes(long guid) {
        return new DeviceAttributes(
                "16.35.2000", guid, guid,
                -1L, 0xfffffffffffff000L,
                0x02c9, 4119, 0,
                262144,         // max_qp
                32768,          // max_qp_wr
                0xe97e1c36,     // device_cap_flags, IBV_DEVICE_XRC included
                30,             // max_sge
                16777216,       // max_cq
                4194303,        // max_cqe (2^22 - 1)
                16777216,       // max_mr
                16777216,       // max_pd
                16, 16,
                Integer.MAX_VALUE, // max_ah
                8388608, 32767, 31,
                2097152, 240,
                1,
                8,              // num_comp_vectors
                AtomicCapability.HCA);
    }

    /** The entry {@code ibv_get_device_list} gives for this device. */
    public DeviceInfo info() {
        return new DeviceInfo(name, guid, nodeType);
    }

    /** Whether the device advertises {@code IBV_DEVICE_XRC}. */
    public boolean supportsXrc() {
        return attributes.supportsXrc();
    }

    /** Port {@code number} (1-based, as the verbs count). */
    public Port port(int number) {
        return ports.get(number - 1);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** A stable locally administered MAC for a netdev named after the device. */
    private static long macFor(String name) {
        long h = fnv1a(name) & 0xffff_ffff_ffffL;
        return (h & ~0x0100_0000_0000L) | 0x0200_0000_0000L;
    }

    /** Modified EUI-64 from a MAC, as the kernel's {@code addrconf_addr_eui48} builds rxe's GUID. */
    private static long eui64(long mac) {
        long high = (mac >>> 24) ^ 0x02_0000L;
        long low = mac & 0xff_ffffL;
        return (high << 40) | 0xff_fe00_0000L | low;
    }

    private static long fnv1a(String text) {
        long h = 0xcbf2_9ce4_8422_2325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x0100_0000_01b3L;
        }
        return h;
    }

    /** Adjusts a profile; limits not set keep the base profile's values. */
    public static final class Builder {
        private String name;
        private long guid;
        private NodeType nodeType;
        private Driver driver;
        private int maxInlineData;
        private boolean onDemandPaging;
        private List<Port> ports;
        private String firmwareVersion;
        private long maxMrSize;
        private long pageSizeCap;
        private int vendorId;
        private int vendorPartId;
        private int hardwareVersion;
        private int maxQp;
        private int maxQpWr;
        private int deviceCapFlags;
        private int maxSge;
        private int maxCq;
        private int maxCqe;
        private int maxMr;
        private int maxPd;
        private int maxQpRdAtom;
        private int maxQpInitRdAtom;
        private int maxAh;
        private int maxSrq;
        private int maxSrqWr;
        private int maxSrqSge;
        private int maxMcastGrp;
        private int maxMcastQpAttach;
        private int numCompVectors;
        private AtomicCapability atomicCap;

        private Builder(DeviceProfile base) {
            DeviceAttributes a = base.attributes;
            name = base.name;
            guid = base.guid;
            nodeType = base.nodeType;
            driver = base.driver;
            maxInlineData = base.maxInlineData;
            onDemandPaging = base.onDemandPaging;
            ports = base.ports;
            firmwareVersion = a.firmwareVersion();
            atomicCap = a.atomicCap();
            maxMrSize = a.maxMrSize();
            pageSizeCap = a.pageSizeCap();
            vendorId = a.vendorId();
            vendorPartId = a.vendorPartId();
            hardwareVersion = a.hardwareVersion();
            maxQp = a.maxQp();
            maxQpWr = a.maxQpWr();
            deviceCapFlags = a.deviceCapFlags();
            maxSge = a.maxSge();
            maxCq = a.maxCq();
            maxCqe = a.maxCqe();
            maxMr = a.maxMr();
            maxPd = a.maxPd();
            maxQpRdAtom = a.maxQpRdAtom();
            maxQpInitRdAtom = a.maxQpInitRdAtom();
            maxAh = a.maxAh();
            maxSrq = a.maxSrq();
            maxSrqWr = a.maxSrqWr();
            maxSrqSge = a.maxSrqSge();
            maxMcastGrp = a.maxMcastGrp();
            maxMcastQpAttach = a.maxMcastQpAttach();
            numCompVectors = a.numCompVectors();
        }

        public Builder name(String value) {
            name = value;
            return this;
        }

        public Builder guid(long value) {
            guid = value;
            return this;
        }

        public Builder nodeType(NodeType value) {
            nodeType = value;
            return this;
        }

        public Builder driver(Driver value) {
            driver = value;
            return this;
        }

        public Builder maxInlineData(int value) {
            maxInlineData = value;
            return this;
        }

        public Builder onDemandPaging(boolean value) {
            onDemandPaging = value;
            return this;
        }

        public Builder ports(List<Port> value) {
            ports = List.copyOf(value);
            return this;
        }

        /** Sets or clears {@code IBV_DEVICE_XRC}. */
        public Builder xrc(boolean supported) {
            deviceCapFlags = supported ? deviceCapFlags | DeviceAttributes.CAP_XRC
                    : deviceCapFlags & ~DeviceAttributes.CAP_XRC;
            return this;
        }

        public Builder numCompVectors(int value) {
            numCompVectors = value;
            return this;
        }

        public Builder maxQp(int value) {
            maxQp = value;
            return this;
        }

        public Builder maxQpWr(int value) {
            maxQpWr = value;
            return this;
        }

        public Builder maxSge(int value) {
            maxSge = value;
            return this;
        }

        public Builder maxCq(int value) {
            maxCq = value;
            return this;
        }

        public Builder maxCqe(int value) {
            maxCqe = value;
            return this;
        }

        public Builder maxMr(int value) {
            maxMr = value;
            return this;
        }

        public Builder maxPd(int value) {
            maxPd = value;
            return this;
        }

        public Builder maxAh(int value) {
            maxAh = value;
            return this;
        }

        public Builder maxSrq(int value) {
            maxSrq = value;
            return this;
        }

        public Builder maxSrqWr(int value) {
            maxSrqWr = value;
            return this;
        }

        public Builder maxSrqSge(int value) {
            maxSrqSge = value;
            return this;
        }

        public Builder maxMcastGrp(int value) {
            maxMcastGrp = value;
            return this;
        }

        public Builder maxMcastQpAttach(int value) {
            maxMcastQpAttach = value;
            return this;
        }

        /** {@code atomic_cap}: {@link AtomicCapability#NONE} makes a device that refuses atomics. */
        public Builder atomicCap(AtomicCapability value) {
            atomicCap = java.util.Objects.requireNonNull(value, "atomicCap");
            return this;
        }

        public Builder maxQpRdAtom(int value) {
            maxQpRdAtom = value;
            return this;
        }

        public Builder maxQpInitRdAtom(int value) {
            maxQpInitRdAtom = value;
            return this;
        }

        public DeviceProfile build() {
            DeviceAttributes attributes = new DeviceAttributes(firmwareVersion, guid, guid, maxMrSize, pageSizeCap,
                    vendorId, vendorPartId, hardwareVersion, maxQp, maxQpWr, deviceCapFlags, maxSge, maxCq, maxCqe,
                    maxMr, maxPd, maxQpRdAtom, maxQpInitRdAtom, maxAh, maxSrq, maxSrqWr, maxSrqSge, maxMcastGrp,
                    maxMcastQpAttach, ports.size(), numCompVectors, atomicCap);
            return new DeviceProfile(name, guid, nodeType, driver, attributes, maxInlineData, onDemandPaging, ports);
        }
    }
}
