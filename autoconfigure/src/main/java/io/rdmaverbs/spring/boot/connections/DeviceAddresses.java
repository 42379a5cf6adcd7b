package io.rdmaverbs.spring.boot.connections;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

/**
 * The address a listener declared with {@code device} binds to: the device's port 1 GID 0, which on
 * RoCE (rxe, mlx5 on Ethernet) is the IPv6 link-local address of its netdev, scoped to that netdev, as
 * {@code rdma_bind_addr(3)} needs it. The kernel's view comes from sysfs
 * ({@code /sys/class/infiniband/<dev>/ports/1/gids/0} and {@code gid_attrs/ndevs/0}); a simulated device
 * has the same address on its simulated network.
 */
final class DeviceAddresses {

    private static final Path SYSFS = Path.of("/sys/class/infiniband");

    private DeviceAddresses() {
    }

    static InetAddress of(VerbsProvider provider, String device, String property) {
        if (provider instanceof SimulatedProvider simulated) {
            List<InetAddress> addresses;
            try {
                addresses = simulated.addresses(device);
            } catch (RuntimeException e) {
                throw unknown(device, property, e.getMessage());
            }
            if (addresses.isEmpty()) {
                throw unknown(device, property, "it has no address");
            }
            return addresses.getFirst();
        }
        Path port = SYSFS.resolve(device).resolve("ports/1");
        try {
            byte[] gid = HexFormat.of().parseHex(Files.readString(port.resolve("gids/0")).strip().replace(":", ""));
            Path ndev = port.resolve("gid_attrs/ndevs/0");
            NetworkInterface nif = Files.exists(ndev) ? NetworkInterface.getByName(Files.readString(ndev).strip())
                    : null;
            return nif == null ? InetAddress.getByAddress(gid) : Inet6Address.getByAddress(null, gid, nif);
        } catch (IOException | IllegalArgumentException e) {
            throw unknown(device, property, e instanceof UnknownHostException || e instanceof SocketException
                    ? e.getMessage() : "its GID 0 is not readable in " + port + " (" + e.getMessage() + ")");
        }
    }

    private static InvalidConnectionSettingException unknown(String device, String property, String why) {
        return new InvalidConnectionSettingException(property, "the address of RDMA device '" + device
                + "' is unknown: " + why, "Name a device that ibv_devices lists and that has an IP address "
                        + "(rdma link shows its netdev), or set the listener's address instead");
    }
}
