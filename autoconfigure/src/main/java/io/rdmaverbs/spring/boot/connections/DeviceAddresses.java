package io.rdmaverbs.spring.boot.connections;

import java.net.InetAddress;
import java.util.List;

import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.VerbsProvider;

/**
 * The address a listener declared with {@code device} binds to: the first of the device's addresses
 * its provider's connection manager knows ({@code ConnectionVerbs.addresses}), port 1's GID 0, which on
 * RoCE (rxe, mlx5 on Ethernet) is the IPv6 link-local address of its netdev, scoped to that netdev, as
 * {@code rdma_bind_addr(3)} needs it. Whichever provider it is, the starter asks it, and names the
 * property when the device has no address.
 */
final class DeviceAddresses {

    private DeviceAddresses() {
    }

    static InetAddress of(VerbsProvider provider, String device, String property) {
        List<InetAddress> addresses;
        try {
            addresses = provider.connectionVerbs().addresses(device);
        } catch (IllegalArgumentException | VerbsException e) {
            throw unknown(device, property, e.getMessage());
        }
        if (addresses.isEmpty()) {
            throw unknown(device, property, "it has no address");
        }
        return addresses.getFirst();
    }

    private static InvalidConnectionSettingException unknown(String device, String property, String why) {
        return new InvalidConnectionSettingException(property, "the address of RDMA device '" + device
                + "' is unknown: " + why, "Name a device that ibv_devices lists and that has an IP address "
                        + "(rdma link shows its netdev), or set the listener's address instead");
    }
}
