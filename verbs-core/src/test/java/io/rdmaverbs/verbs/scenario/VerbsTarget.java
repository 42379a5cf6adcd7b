package io.rdmaverbs.verbs.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * @param name how the target appears in test names
 * @param provider a provider per scenario (simulated: a fresh one; native: the process's one)
 * @param device the device to open, or {@code null} for the provider's first
 * @param kernelLeakCheck whether {@code rdma resource show} can verify nothing was left
 */
public record VerbsTarget(String name, Supplier<VerbsProvider> provider, @Nullable String device,
        boolean kernelLeakCheck) {

    public static final String TARGETS_PROPERTY = "rdma.verbs.scenario.targets";
    public static final String DEVICE_PROPERTY = "rdma.verbs.scenario.device";

    public static VerbsTarget simulatedRxe() {
        return new VerbsTarget("simulated-rxe", () -> SimulatedProvider.of(DeviceProfile.rxe("rxe0")), "rxe0", false);
    }

    public static VerbsTarget simulatedMlx5() {
        return new VerbsTarget("simulated-mlx5", () -> SimulatedProvider.of(DeviceProfile.mlx5("mlx5_0")), "mlx5_0",
                false);
    }

    public static VerbsTarget nativeDevice(@Nullable String device) {
        return new VerbsTarget("native", NativeVerbsProvider::load, device, true);
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
