package io.rdmaverbs.verbs.provider.simulated;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import io.rdmaverbs.verbs.attr.Gid;

import org.jspecify.annotations.Nullable;

/**
 * The wire and the IP network that simulated hosts share: every {@link SimulatedProvider} made
 * {@link SimulatedProvider#on on} one network is a host whose devices reach the other hosts' devices,
 * for traffic (one {@link Fabric}) and for the connection manager (addresses, ports, CM ids). A provider
 * made with {@link SimulatedProvider#of} is alone on a network of its own.
 *
 * <p>Addresses: each device gets, when its host joins, the IPv6 link-local address that is its port 1's
 * GID 0 ({@code fe80::} and the GUID as an EUI-64, as rxe derives both from the MAC of its netdev);
 * {@link SimulatedProvider#addAddress} adds more (IPv4 as well), like {@code ip addr add}. An address is
 * on one device of the whole network: a duplicate is refused.
 *
 * <p>Locking: {@link #lock} guards the CM state of every host; it is taken before any device lock and
 * never while one is held.
 */
public final class SimulatedNetwork {

    /** One address of a device of a host. */
    record Interface(SimConnectionVerbs host, SimDevice device) {
    }

    final Fabric fabric = new Fabric(List.of());
    final ReentrantLock lock = new ReentrantLock();
    private final Map<InetAddress, Interface> interfaces = new LinkedHashMap<>();

    private SimulatedNetwork() {
    }

    /** An empty network; providers join it with {@link SimulatedProvider#on}. */
    public static SimulatedNetwork create() {
        return new SimulatedNetwork();
    }

    /** Connects a host's devices to the wire and gives each its link-local address. */
    void join(SimConnectionVerbs host, List<SimDevice> devices) {
        lock.lock();
        try {
            fabric.join(devices);
            for (SimDevice d : devices) {
                Gid gid = d.profile.port(1).gid(0);
                assign(host, d, ipv6(gid));
            }
        } finally {
            lock.unlock();
        }
    }

    void assign(SimConnectionVerbs host, SimDevice device, InetAddress address) {
        lock.lock();
        try {
            InetAddress key = plain(address);
            Interface existing = interfaces.get(key);
            if (existing != null) {
                throw new IllegalArgumentException("address " + key.getHostAddress() + " is already on "
                        + existing.device().name() + " of a host on this network (duplicate address detection)");
            }
            interfaces.put(key, new Interface(host, device));
        } finally {
            lock.unlock();
        }
    }

    /** The device that has the address, on any host; the scope id of a link-local address is not compared. */
    @Nullable Interface find(InetAddress address) {
        return interfaces.get(plain(address));
    }

    List<InetAddress> addresses(SimDevice device) {
        lock.lock();
        try {
            List<InetAddress> found = new ArrayList<>();
            interfaces.forEach((address, itf) -> {
                if (itf.device() == device) {
                    found.add(address);
                }
            });
            return List.copyOf(found);
        } finally {
            lock.unlock();
        }
    }

    /** The address without scope id, so that {@code fe80::1%dummy0} and {@code fe80::1} are one key. */
    static InetAddress plain(InetAddress address) {
        try {
            return InetAddress.getByAddress(address.getAddress());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(address + " has no 4 or 16 byte address", e);
        }
    }

    private static InetAddress ipv6(Gid gid) {
        byte[] bytes = java.nio.ByteBuffer.allocate(16).putLong(gid.subnetPrefix()).putLong(gid.interfaceId()).array();
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
