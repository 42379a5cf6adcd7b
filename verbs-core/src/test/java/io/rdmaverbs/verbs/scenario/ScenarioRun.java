package io.rdmaverbs.verbs.scenario;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.provider.CmChannelHandle;
import io.rdmaverbs.verbs.provider.CmIdHandle;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.ResourceCounts;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One scenario's world: a fresh resource graph on the target's provider, the device to use, and the
 * step record. Closing it releases whatever the scenario left (cascade) and then checks that nothing
 * is left: in the graph, and for native targets in the kernel ({@code rdma resource show}).
 */
public final class ScenarioRun implements AutoCloseable {

    private final VerbsTarget target;
    private final VerbsProvider provider;
    private final Verbs verbs;
    private final DeviceInfo device;
    private final Steps steps = new Steps();
    private Map<String, Integer> objectsBefore;
    private @Nullable InetAddress cmAddress;
    private final List<Verbs> otherGraphs = new CopyOnWriteArrayList<>();

    private ScenarioRun(VerbsTarget target) {
        this.target = target;
        this.provider = target.provider().get();
        this.verbs = Verbs.using(provider);
        this.device = target.device() == null
                ? provider.deviceVerbs().devices().stream().findFirst().orElseThrow(
                        () -> new IllegalStateException(target + ": the provider has no device"))
                : verbs.findDevice(target.device());
        this.objectsBefore = liveObjects();
    }

    /**
     * The objects the provider's "kernel" holds for this process, by type: {@code rdma resource show}
     * for the real device, the simulated device's own accounting otherwise. The leak check compares
     * this before and after the scenario.
     */
    public Map<String, Integer> liveObjects() {
        if (target.kernelLeakCheck()) {
            return KernelResources.ofThisProcess();
        }
        if (provider instanceof SimulatedProvider sim) {
            ResourceCounts c = sim.resourceCounts(device.name());
            Map<String, Integer> m = new LinkedHashMap<>();
            m.put("pd", c.pds());
            m.put("cq", c.cqs());
            m.put("qp", c.qps());
            m.put("mr", c.mrs());
            m.put("srq", c.srqs());
            m.put("ctx", c.contexts());
            m.put("cm_id", sim.liveCmIds());
            return m;
        }
        return Map.of();
    }

    /**
     * The device's IP address for {@code rdma_cm(7)} ({@link VerbsTarget.CmNetdev}); skips the scenario
     * where the target has none. The first call makes librdmacm open its own device context (bind an id,
     * destroy it): librdmacm keeps that context for the life of the process, so the leak check counts it
     * as there before the scenario.
     */
    public InetAddress cmAddress() {
        InetAddress known = cmAddress;
        if (known != null) {
            return known;
        }
        InetAddress address = target.cm().address().apply(provider);
        Assumptions.assumeTrue(address != null, () -> target + " has no CM address: set "
                + VerbsTarget.CM_ADDRESS_PROPERTY + " or " + VerbsTarget.CM_ADDRESS_ENV);
        ConnectionVerbs cm = provider.connectionVerbs();
        CmChannelHandle channel = cm.createEventChannel();
        try {
            CmIdHandle id = cm.createId(channel, CmPortSpace.TCP);
            try {
                cm.bindAddr(id, new InetSocketAddress(address, 0));
            } finally {
                cm.destroyId(id);
            }
        } finally {
            cm.destroyEventChannel(channel);
        }
        Integer contexts = liveObjects().get("ctx");
        if (contexts != null) {
            Map<String, Integer> before = new LinkedHashMap<>(objectsBefore);
            before.put("ctx", contexts);
            objectsBefore = before;
        }
        cmAddress = address;
        return address;
    }

    /**
     * RNR NAKs the device's requesters received so far: rxe's {@code hw_counters/rcvd_rnr_err} on the kernel
     * (-1 where the device has no such counter), the simulated device's count otherwise.
     */
    public long rnrNaksReceived() {
        if (provider instanceof SimulatedProvider sim) {
            return sim.rnrNaksReceived(device.name());
        }
        java.nio.file.Path counter = java.nio.file.Path.of("/sys/class/infiniband", device.name(), "ports/1/hw_counters",
                "rcvd_rnr_err");
        try {
            return Long.parseLong(java.nio.file.Files.readString(counter).strip());
        } catch (java.io.IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** Whether the CM address's netdev resolves neighbours (see {@link VerbsTarget.CmNetdev}). */
    public boolean neighbourDiscovery() {
        return target.cm().neighbourDiscovery();
    }

    public static ScenarioRun start(VerbsTarget target) {
        return new ScenarioRun(target);
    }

    public VerbsTarget target() {
        return target;
    }

    public VerbsProvider provider() {
        return provider;
    }

    public Verbs verbs() {
        return verbs;
    }

    public DeviceInfo device() {
        return device;
    }

    public Steps steps() {
        return steps;
    }

    /** Opens the target device in this run's graph. */
    public DeviceContext open() {
        return verbs.openDevice(device);
    }

    /** A second graph on the same provider, as a second process would have (XRC sharing). */
    public Verbs otherGraph() {
        Verbs other = Verbs.using(provider);
        otherGraphs.add(other);
        return other;
    }

    /** The graphs {@link #otherGraph()} opened, oldest first. */
    public List<Verbs> otherGraphs() {
        return List.copyOf(otherGraphs);
    }

    @Override
    public void close() {
        for (Verbs other : otherGraphs) {
            other.close();   // a scenario closes its own; this is for one a failure cut short (fault sweeps)
        }
        CloseReport report = verbs.close(ClosePolicy.CASCADE);
        assertThat(report.left()).as("%s: resources the cascade could not release", target).isEmpty();
        assertThat(verbs.resources()).as("%s: graph after the scenario", target).isEmpty();
        assertThat(liveObjects()).as("%s: objects the provider holds for this process after the scenario", target)
                .isEqualTo(objectsBefore);
        if (provider instanceof SimulatedProvider sim) {
            assertThat(sim.freedMemoryUses()).as("%s: uses of freed memory (each a crash on a real device)", target)
                    .isEmpty();
        }
    }
}
