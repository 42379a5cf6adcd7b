package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;
import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.requirePort;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.DeviceVerbs;

/**
 * The devices of a {@link SimulatedProvider} and the verbs on them: {@code ibv_get_device_list},
 * {@code ibv_open_device}/{@code ibv_close_device} and the queries of device, ports and GIDs.
 */
final class SimDeviceVerbs implements DeviceVerbs {

    private final SimUverbs uverbs;
    private final List<SimDevice> devices;
    private final Map<String, SimDevice> byName;

    SimDeviceVerbs(SimUverbs uverbs, List<SimDevice> devices) {
        this.uverbs = uverbs;
        this.devices = devices;
        Map<String, SimDevice> names = new LinkedHashMap<>();
        for (SimDevice device : devices) {
            names.put(device.name(), device);
        }
        this.byName = Map.copyOf(names);
    }

    /** The devices of these profiles; refuses repeated names, GUIDs, GIDs and LIDs. */
    static List<SimDevice> devicesOf(List<DeviceProfile> profiles) {
        if (profiles.isEmpty()) {
            throw new IllegalArgumentException("a simulated provider needs at least one device profile");
        }
        List<SimDevice> list = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<Long> guids = new HashSet<>();
        Set<Gid> gids = new HashSet<>();
        Set<Integer> lids = new HashSet<>();
        for (DeviceProfile profile : profiles) {
            Objects.requireNonNull(profile, "profile");
            if (names.contains(profile.name())) {
                throw new IllegalArgumentException("two devices are named " + profile.name());
            }
            if (!guids.add(profile.guid())) {
                throw new IllegalArgumentException("device " + profile.name() + " repeats GUID " + profile.info().guidHex()
                        + "; give each device its own (DeviceProfile.rxe/mlx5 derive one from the name)");
            }
            Set<Gid> own = new HashSet<>();
            for (DeviceProfile.Port port : profile.ports()) {
                for (Gid gid : port.gids()) {
                    if (!gid.isZero() && own.add(gid) && !gids.add(gid)) {
                        throw new IllegalArgumentException("GID " + gid + " of " + profile.name()
                                + " is already used by another device: packets could not be routed");
                    }
                }
                if (port.lid() != 0 && !lids.add(port.lid())) {
                    throw new IllegalArgumentException("LID " + port.lid() + " of " + profile.name()
                            + " is already used by another port");
                }
            }
            SimDevice device = new SimDevice(profile, list.size());
            list.add(device);
            names.add(profile.name());
        }
        return List.copyOf(list);
    }

    /** This provider's devices, in {@link #devices()} order. */
    List<SimDevice> all() {
        return devices;
    }

    @Override
    public List<DeviceInfo> devices() {
        uverbs.call("ibv_get_device_list", null, "the device list");
        return devices.stream().map(d -> d.profile.info()).toList();
    }

    @Override
    public ContextHandle openDevice(DeviceInfo device) {
        Objects.requireNonNull(device, "device");
        SimDevice d = devices.stream().filter(x -> x.profile.info().equals(device)).findFirst()
                .orElseThrow(() -> new VerbsException("ibv_open_device", device.name(), Errno.ENODEV,
                        "no such device in this simulated provider; it has " + byName.keySet()));
        uverbs.call("ibv_open_device", d, d.name());
        return locked(d, () -> {
            d.requireAlive("ibv_open_device", d.name());
            SimContext context = new SimContext(uverbs.provider, d, d.nextId(KernelObjectKind.CONTEXT));
            d.contexts.add(context);
            return context;
        });
    }

    /**
     * {@code ibv_close_device} succeeds with objects still alive, and does not free them: they stay in
     * the device's accounting, unusable, and are reported by {@link SimulatedProvider#leakedObjects()}.
     * (In the kernel the uverbs file is released only when its last reference goes; the queue buffers
     * rdma-core maps hold such references until the process exits.)
     */
    @Override
    public void closeDevice(ContextHandle context) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        if (ctx.ownedByConnectionManager) {
            throw new IllegalArgumentException(ctx.describe() + " was opened by the connection manager (id->verbs);"
                    + " librdmacm closes it, never its users");
        }
        uverbs.call("ibv_close_device", ctx);
        SimDevice d = ctx.device;
        locked(d, () -> {
            ctx.requireUsable();
            for (SimHandle child : ctx.children()) {
                d.leaks.add(new LeakedObject(d.name(), ctx.describe(), child.kind, child.describe()));
                if (child instanceof SimCompChannel channel) {
                    channel.eventArrived.signalAll();
                }
            }
            d.contexts.remove(ctx);
            ctx.markDestroyed();
        });
    }

    @Override
    public DeviceAttributes queryDevice(ContextHandle context) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        uverbs.call("ibv_query_device", ctx);
        ctx.device.requireAlive("ibv_query_device", ctx.describe());
        return ctx.device.profile.attributes();
    }

    @Override
    public PortAttributes queryPort(ContextHandle context, int port) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        uverbs.call("ibv_query_port", ctx);
        SimDevice d = ctx.device;
        return locked(d, () -> {
            d.requireAlive("ibv_query_port", ctx.describe());
            requirePort("ibv_query_port", ctx, port);
            DeviceProfile.Port p = d.profile.port(port);
            PortState state = d.portState(port);
            int physicalState = state == PortState.ACTIVE ? 5 : 3; // LINK_UP, else DISABLED
            return new PortAttributes(port, state, p.maxMtu(), p.activeMtu(), p.gidTableLength(), p.portCapFlags(),
                    p.maxMessageSize(), p.pkeyTableLength(), p.lid(), p.smLid(), 0, p.activeWidth(), p.activeSpeed(),
                    physicalState, p.linkLayer());
        });
    }

    /** An index inside the table whose entry is empty reads as the zero GID (libibverbs maps ENODATA to it). */
    @Override
    public Gid queryGid(ContextHandle context, int port, int index) {
        SimContext ctx = uverbs.own(context, SimContext.class);
        uverbs.call("ibv_query_gid", ctx);
        ctx.device.requireAlive("ibv_query_gid", ctx.describe());
        requirePort("ibv_query_gid", ctx, port);
        DeviceProfile.Port p = ctx.device.profile.port(port);
        if (index < 0 || index >= p.gidTableLength()) {
            throw new VerbsException("ibv_query_gid", ctx.describe(), Errno.EINVAL, "GID index " + index
                    + " is outside port " + port + "'s table of " + p.gidTableLength() + " entries");
        }
        return p.gid(index);
    }

    SimDevice device(String name) {
        SimDevice d = byName.get(Objects.requireNonNull(name, "deviceName"));
        if (d == null) {
            throw new IllegalArgumentException("no device " + name + " in this provider; it has " + byName.keySet());
        }
        return d;
    }
}
