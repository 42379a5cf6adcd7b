package io.rdmaverbs.verbs.scenario;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.jspecify.annotations.Nullable;

/**
 * Where the scenario suite runs: a provider and the device on it. Chosen with the system property
 * {@code rdma.verbs.scenario.targets} (comma-separated: {@code simulated-rxe}, {@code simulated-mlx5},
 * {@code native}; default the two simulated profiles) and, for {@code native},
 * {@code rdma.verbs.scenario.device} (default: the first device).
 *
 * <p>The connection scenarios also need the device's IP address for {@code rdma_cm(7)}: on the simulator
 * the simulated device's own (its link-local address); in the soft-RoCE guest {@code SOFTROCE_RDMA_ADDR}
 * (rxe0's netdev dummy0, {@code fe80::...%dummy0}), or {@code rdma.verbs.scenario.cm-address}.
 *
 * @param name how the target appears in test names
 * @param provider a provider per scenario (simulated: a fresh one; native: the process's one)
 * @param device the device to open, or {@code null} for the provider's first
 * @param kernelLeakCheck whether {@code rdma resource show} can verify nothing was left
 * @param cm what the connection scenarios need to know of the device's netdev
 */
public record VerbsTarget(String name, Supplier<VerbsProvider> provider, @Nullable String device,
        boolean kernelLeakCheck, CmNetdev cm) {

    public static final String TARGETS_PROPERTY = "rdma.verbs.scenario.targets";
    public static final String DEVICE_PROPERTY = "rdma.verbs.scenario.device";
    public static final String CM_ADDRESS_PROPERTY = "rdma.verbs.scenario.cm-address";
    /** Where {@code tools/softroce/run.sh} puts rxe0's link-local address. */
    public static final String CM_ADDRESS_ENV = "SOFTROCE_RDMA_ADDR";
    /** {@code IFF_NOARP} in {@code /sys/class/net/<netdev>/flags}: the netdev resolves no neighbours. */
    private static final int IFF_NOARP = 0x80;

    /**
     * The IP side of a device, for the connection manager.
     *
     * @param address the device's address on a provider (null when the target has none configured)
     * @param neighbourDiscovery whether its netdev resolves neighbours (ARP/ND); off ({@code IFF_NOARP}, as
     *        dummy0) an address nobody has still resolves, and only the connect goes unanswered
     */
    public record CmNetdev(Function<VerbsProvider, @Nullable InetAddress> address, boolean neighbourDiscovery) {

        /** The simulated device's own first address, on a netdev with neighbour discovery. */
        static CmNetdev simulated(String device) {
            return new CmNetdev(p -> ((SimulatedProvider) p).addresses(device).getFirst(), true);
        }
    }

    /** A target whose CM side is the simulated device's (the fault sweeps' form). */
    public VerbsTarget(String name, Supplier<VerbsProvider> provider, @Nullable String device,
            boolean kernelLeakCheck) {
        this(name, provider, device, kernelLeakCheck, CmNetdev.simulated(device == null ? name : device));
    }

    /**
     * rxe's profile, with its netdev as in the soft-RoCE guest: dummy0, {@code IFF_NOARP}; the differential
     * check compares the kernel against this target.
     */
    public static VerbsTarget simulatedRxe() {
        return new VerbsTarget("simulated-rxe", () -> {
            SimulatedProvider sim = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
            sim.setArp("rxe0", false);
            return sim;
        }, "rxe0", false, new CmNetdev(CmNetdev.simulated("rxe0").address(), false));
    }

    /** mlx5's profile, on an Ethernet netdev with neighbour discovery. */
    public static VerbsTarget simulatedMlx5() {
        return new VerbsTarget("simulated-mlx5", () -> SimulatedProvider.of(DeviceProfile.mlx5("mlx5_0")), "mlx5_0",
                false);
    }

    public static VerbsTarget nativeDevice(@Nullable String device) {
        String configured = System.getProperty(CM_ADDRESS_PROPERTY, System.getenv(CM_ADDRESS_ENV));
        InetAddress address = null;
        if (configured != null && !configured.isBlank()) {
            try {
                address = InetAddress.getByName(configured.trim());
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(CM_ADDRESS_PROPERTY + ": " + configured + " is no IP address", e);
            }
        }
        InetAddress cmAddress = address;
        return new VerbsTarget("native", NativeVerbsProvider::load, device, true,
                new CmNetdev(p -> cmAddress, cmAddress == null || resolvesNeighbours(cmAddress)));
    }

    /** Whether the netdev of a scoped address does ARP/ND: {@code IFF_NOARP} (0x80) clear in its flags. */
    private static boolean resolvesNeighbours(InetAddress address) {
        if (!(address instanceof Inet6Address v6) || v6.getScopedInterface() == null) {
            return true;
        }
        Path flags = Path.of("/sys/class/net", v6.getScopedInterface().getName(), "flags");
        try {
            return (Integer.decode(Files.readString(flags).trim()) & IFF_NOARP) == 0;
        } catch (IOException | NumberFormatException e) {
            return true;
        }
    }

    /** The targets the system properties select. */
    public static List<VerbsTarget> selected() {
        String spec = System.getProperty(TARGETS_PROPERTY, "simulated-rxe,simulated-mlx5");
        Map<String, Supplier<VerbsTarget>> known = Map.of(
                "simulated-rxe", VerbsTarget::simulatedRxe,
                "simulated-mlx5", VerbsTarget::simulatedMlx5,
                "native", () -> nativeDevice(System.getProperty(DEVICE_PROPERTY)));
        List<VerbsTarget> out = new ArrayList<>();
        for (String n : spec.split(",")) {
            String key = n.trim();
            if (key.isEmpty()) {
                continue;
            }
            Supplier<VerbsTarget> t = known.get(key);
            if (t == null) {
                throw new IllegalArgumentException(TARGETS_PROPERTY + ": unknown target '" + key + "', known: "
                        + known.keySet());
            }
            out.add(t.get());
        }
        return out;
    }

    @Override
    public String toString() {
        return name;
    }
}
