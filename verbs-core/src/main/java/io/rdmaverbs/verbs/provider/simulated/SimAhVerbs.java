package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;

import java.util.Objects;

import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.AddressHandleVerbs;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.PdHandle;

/**
 * Address handles: {@code ibv_create_ah} and {@code ibv_destroy_ah}, and the address vector check that
 * {@code ibv_modify_qp} applies to a connected QP's path as well.
 */
final class SimAhVerbs implements AddressHandleVerbs {

    private final SimUverbs uverbs;

    SimAhVerbs(SimUverbs uverbs) {
        this.uverbs = uverbs;
    }

    @Override
    public AhHandle createAh(PdHandle pd, AddressVector address) {
        SimPd p = uverbs.own(pd, SimPd.class);
        uverbs.call("ibv_create_ah", p);
        Objects.requireNonNull(address, "address");
        SimDevice d = p.device;
        return locked(d, () -> {
            p.requireUsable();
            d.requireAlive("ibv_create_ah", p.describe());
            checkAddress("ibv_create_ah", p.describe(), d, address);
            d.allocate(KernelObjectKind.AH, "ibv_create_ah", p.describe());
            SimAh ah = new SimAh(p.context(), d.nextId(KernelObjectKind.AH), p, address);
            p.usecnt++;
            p.context().adopt(ah);
            return ah;
        });
    }

    @Override
    public void destroyAh(AhHandle ah) {
        SimAh a = uverbs.own(ah, SimAh.class);
        uverbs.call("ibv_destroy_ah", a);
        SimDevice d = a.device;
        locked(d, () -> {
            a.requireUsable();
            a.pd.usecnt--;
            d.free(KernelObjectKind.AH);
            a.context().release(a);
            a.markDestroyed();
        });
    }

    /**
     * {@code rdma_check_ah_attr} and {@code rdma_get_gid_attr}: the port exists, a RoCE port needs a GRH,
     * the source GID index is inside the table (EINVAL) and populated (ENODATA).
     */
    static void checkAddress(String verb, String resource, SimDevice d, AddressVector av) {
        if (!d.hasPort(av.portNumber())) {
            throw new VerbsException(verb, resource, Errno.EINVAL, "port " + av.portNumber() + " does not exist on "
                    + d.name());
        }
        DeviceProfile.Port port = d.profile.port(av.portNumber());
        var route = av.globalRoute();
        if (route == null) {
            if (port.linkLayer() == LinkLayer.ETHERNET) {
                throw new VerbsException(verb, resource, Errno.EINVAL, "a RoCE address needs a GRH (a destination"
                        + " GID): use AddressVector.roce");
            }
            return;
        }
        if (route.sourceGidIndex() >= port.gidTableLength()) {
            throw new VerbsException(verb, resource, Errno.EINVAL, "source GID index " + route.sourceGidIndex()
                    + " is outside the table of " + port.gidTableLength());
        }
        if (port.gid(route.sourceGidIndex()).isZero()) {
            throw new VerbsException(verb, resource, Errno.ENODATA, "source GID index " + route.sourceGidIndex()
                    + " of port " + av.portNumber() + " is empty; GIDs in use: " + port.gids());
        }
    }
}
