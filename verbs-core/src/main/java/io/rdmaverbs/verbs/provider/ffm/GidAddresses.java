package io.rdmaverbs.verbs.provider.ffm;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

import io.rdmaverbs.verbs.error.VerbsException;

import org.jspecify.annotations.Nullable;

/**
 * A device's port 1 GID 0 as the IP address the connection manager binds to, read where libibverbs'
 * {@code ibv_query_gid(3)} and {@code ibv_query_gid_ex(3)} read it: the kernel's
 * {@code <device>/ports/1/gids/0} and {@code gid_attrs/ndevs/0} under {@code /sys/class/infiniband}.
 * On RoCE that GID is the netdev's IPv6 address (its link-local one for GID 0), and the netdev is the
 * scope a link-local address needs for {@code rdma_bind_addr(3)}.
 */
final class GidAddresses {

    static final Path SYSFS = Path.of("/sys/class/infiniband");

    private final Path root;

    /** @param root the directory with one entry per device, {@link #SYSFS} but in tests */
    GidAddresses(Path root) {
        this.root = root;
    }

    /** The address of GID 0, scoped to its netdev when it is link-local; empty while GID 0 is unset. */
    List<InetAddress> of(String deviceName) {
        Path device = root.resolve(deviceName);
        if (deviceName.isEmpty() || deviceName.contains("/") || !Files.isDirectory(device)) {
            throw new IllegalArgumentException("no RDMA device " + deviceName + " on this host (" + device
                    + " does not exist)");
        }
        Path port = device.resolve("ports/1");
        byte[] gid;
        try {
            gid = HexFormat.of().parseHex(Files.readString(port.resolve("gids/0")).strip().replace(":", ""));
        } catch (IOException | IllegalArgumentException e) {
            throw new VerbsException("ibv_query_gid", "device " + deviceName + " port 1 index 0", null,
                    "GID 0 is not readable in " + port + " (" + e.getMessage() + ")", e);
        }
        if (gid.length != 16) {
            throw new VerbsException("ibv_query_gid", "device " + deviceName + " port 1 index 0", null,
                    "GID 0 in " + port + " has " + gid.length + " bytes, not 16");
        }
        if (isZero(gid)) {
            return List.of();
        }
        InetAddress plain;
        try {
            plain = InetAddress.getByAddress(gid);
        } catch (UnknownHostException e) {
            throw new AssertionError("16 bytes are an IPv6 address", e);
        }
        NetworkInterface netdev = netdev(port.resolve("gid_attrs/ndevs/0"));
        if (netdev == null || !plain.isLinkLocalAddress()) {
            return List.of(plain);
        }
        try {
            return List.of(Inet6Address.getByAddress(null, gid, netdev));
        } catch (UnknownHostException e) {
            // The netdev has no link-local address of its own to take the scope from: leave it unscoped.
            return List.of(plain);
        }
    }

    /** The GID's netdev, if the kernel names one and this host has it. */
    private static @Nullable NetworkInterface netdev(Path ndev) {
        try {
            return Files.exists(ndev) ? NetworkInterface.getByName(Files.readString(ndev).strip()) : null;
        } catch (IOException e) {
            // SocketException included: without its netdev the address is still the GID's, unscoped.
            return null;
        }
    }

    private static boolean isZero(byte[] gid) {
        for (byte b : gid) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
