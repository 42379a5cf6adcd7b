package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;

import io.rdmaverbs.verbs.error.VerbsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native provider's {@code addresses(device)}: port 1 GID 0 and its netdev as the kernel exposes
 * them under {@code /sys/class/infiniband}, here a directory laid out the same way (the soft-RoCE run
 * checks the real one, {@code CmScenarios.deviceAddress}).
 */
class GidAddressesTest {

    private static final String RXE0_GID = "fe80:0000:0000:0000:5054:00ff:fe12:3401";

    @TempDir
    Path sysfs;

    @Test
    void aLinkLocalGidIsScopedToItsNetdev() throws IOException {
        // RoCE's GID 0 is its netdev's link-local address: take a netdev of this host that has one.
        Inet6Address linkLocal = NetworkInterface.networkInterfaces().flatMap(NetworkInterface::inetAddresses)
                .filter(a -> a instanceof Inet6Address && a.isLinkLocalAddress()).map(Inet6Address.class::cast)
                .findFirst().orElse(null);
        assumeTrue(linkLocal != null, "no network interface of this host has an IPv6 link-local address");
        NetworkInterface netdev = linkLocal.getScopedInterface();
        device("rxe0", gid(linkLocal.getAddress()), netdev.getName());

        InetAddress address = new GidAddresses(sysfs).of("rxe0").getFirst();

        assertThat(address.getAddress()).isEqualTo(linkLocal.getAddress());
        assertThat(((Inet6Address) address).getScopedInterface()).isEqualTo(netdev);
    }

    @Test
    void aGidWithoutNetdevOrWhoseNetdevCannotScopeItIsUnscoped() throws IOException {
        device("rxe0", RXE0_GID, null);
        device("rxe1", RXE0_GID, "nosuchnetdev0");
        device("rxe2", RXE0_GID, "lo");

        for (String name : new String[] { "rxe0", "rxe1", "rxe2" }) {
            InetAddress address = new GidAddresses(sysfs).of(name).getFirst();
            assertThat(address.getAddress()).as(name).isEqualTo(InetAddress.getByName("fe80::5054:ff:fe12:3401")
                    .getAddress());
            assertThat(((Inet6Address) address).getScopedInterface()).as(name).isNull();
        }
    }

    @Test
    void anUnsetGidIsNoAddress() throws IOException {
        device("rxe0", "0000:0000:0000:0000:0000:0000:0000:0000", "lo");

        assertThat(new GidAddresses(sysfs).of("rxe0")).isEmpty();
    }

    @Test
    void aDeviceThisHostDoesNotHaveIsRefusedByName() {
        assertThatThrownBy(() -> new GidAddresses(sysfs).of("mlx5_9")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no RDMA device mlx5_9 on this host");
        assertThatThrownBy(() -> new GidAddresses(sysfs).of("../etc")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anUnreadableGidNamesTheVerbThatReadsIt() throws IOException {
        Files.createDirectories(sysfs.resolve("rxe0/ports/1"));

        assertThatThrownBy(() -> new GidAddresses(sysfs).of("rxe0")).isInstanceOf(VerbsException.class)
                .hasMessageContaining("ibv_query_gid").hasMessageContaining("GID 0 is not readable");
    }

    /** The GID as sysfs writes it: eight groups of four hex digits. */
    private static String gid(byte[] address) {
        String hex = java.util.HexFormat.of().formatHex(address);
        return String.join(":", java.util.stream.IntStream.range(0, 8).mapToObj(i -> hex.substring(4 * i, 4 * i + 4))
                .toList());
    }

    private void device(String name, String gid, String netdev) throws IOException {
        Path port = Files.createDirectories(sysfs.resolve(name).resolve("ports/1"));
        Files.createDirectories(port.resolve("gids"));
        Files.writeString(port.resolve("gids/0"), gid + "\n");
        if (netdev != null) {
            Files.createDirectories(port.resolve("gid_attrs/ndevs"));
            Files.writeString(port.resolve("gid_attrs/ndevs/0"), netdev + "\n");
        }
    }
}
