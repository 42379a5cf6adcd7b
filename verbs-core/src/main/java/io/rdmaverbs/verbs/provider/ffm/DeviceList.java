package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.NodeType;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

/**
 * {@code ibv_get_device_list} ... {@code ibv_free_device_list}. The {@code struct ibv_device}
 * pointers are valid only until the list is freed, so callers see them inside a visit, and a device
 * to open is opened there.
 */
final class DeviceList {

    interface Visitor {
        /** Returns true to stop the walk. */
        boolean visit(MemorySegment device, DeviceInfo info);
    }

    private DeviceList() {
    }

    /**
     * Visits every device. Without {@code /sys/class/infiniband} (no RDMA stack in the kernel) the list
     * is NULL with ENOSYS: that is no devices, not an error.
     */
    static void forEach(Visitor visitor) {
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(C_INT);
            MemorySegment list = Libibverbs.ibv_get_device_list(state, count);
            if (InlineVerbs.isNull(list)) {
                int errno = CallState.errno(state);
                if (errno == Errno.ENOSYS.number()) {
                    return;
                }
                throw new VerbsException("ibv_get_device_list", "libibverbs", Errno.of(errno > 0 ? errno : Errno.EIO.number()),
                        "could not list the RDMA devices" + VerbChecks.permissionHint(errno));
            }
            try {
                int n = count.get(C_INT, 0);
                MemorySegment devices = list.reinterpret(ADDRESS.byteSize() * n);
                for (int i = 0; i < n; i++) {
                    MemorySegment device = devices.getAtIndex(ADDRESS, i);
                    if (visitor.visit(device, info(device))) {
                        return;
                    }
                }
            } finally {
                Libibverbs.ibv_free_device_list(list);
            }
        }
    }

    /** Name and GUID through their functions, node type from the struct, as {@code ibv_devices} does. */
    static DeviceInfo info(MemorySegment device) {
        String name = Layouts.cString(Libibverbs.ibv_get_device_name(device), IbvDevice.IBV_SYSFS_NAME_MAX);
        long guid = Libibverbs.ibv_get_device_guid(device);
        int nodeType = IbvDevice.NODE_TYPE.get(device.reinterpret(IbvDevice.LAYOUT.byteSize()));
        return new DeviceInfo(name, be64toh(guid), NodeType.of(nodeType));
    }

    /** The GUID comes back as a {@code __be64} in a register: big-endian bytes. */
    private static long be64toh(long value) {
        return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Long.reverseBytes(value) : value;
    }
}
