package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.chars;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_device}: only {@code node_type} is read, the rest has functions of its own. */
final class IbvDevice {

    static final int IBV_SYSFS_NAME_MAX = 64;
    static final int IBV_SYSFS_PATH_MAX = 256;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            chars(16).withName("_ops"),
            C_ENUM.withName("node_type"),
            C_ENUM.withName("transport_type"),
            chars(IBV_SYSFS_NAME_MAX).withName("name"),
            chars(IBV_SYSFS_NAME_MAX).withName("dev_name"),
            chars(IBV_SYSFS_PATH_MAX).withName("dev_path"),
            chars(IBV_SYSFS_PATH_MAX).withName("ibdev_path"))
            .withName("ibv_device");

    static final Field.OfInt NODE_TYPE = Field.ofInt(LAYOUT, "node_type");

    private IbvDevice() {
    }
}
