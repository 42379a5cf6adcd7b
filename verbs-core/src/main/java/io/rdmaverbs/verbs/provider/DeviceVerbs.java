package io.rdmaverbs.verbs.provider;

import java.util.List;

import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.PortAttributes;

/**
 * Devices and their contexts: {@code ibv_get_device_list(3)}, {@code ibv_open_device(3)},
 * {@code ibv_query_device(3)}, {@code ibv_query_port(3)}, {@code ibv_query_gid(3)}. Failures and
 * handle checks as described on {@link VerbsProvider}.
 */
public interface DeviceVerbs {

    /** {@code ibv_get_device_list}: the devices present; empty (not an error) when there are none. */
    List<DeviceInfo> devices();

    /** {@code ibv_open_device}. */
    ContextHandle openDevice(DeviceInfo device);

    /** {@code ibv_close_device}. */
    void closeDevice(ContextHandle context);

    /** {@code ibv_query_device} (and {@code num_comp_vectors} of the context). */
    DeviceAttributes queryDevice(ContextHandle context);

    /** {@code ibv_query_port}; EINVAL for a port the device does not have. */
    PortAttributes queryPort(ContextHandle context, int port);

    /** {@code ibv_query_gid}. */
    Gid queryGid(ContextHandle context, int port, int index);
}
