package io.rdmaverbs.sample.exchange;

import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.PortAttributes;

/** The address of a port itself, for QPs connected to QPs on the same port (loopback). */
final class PortAddress {

    static final int PORT = 1;

    private PortAddress() {
    }

    /** RoCE (soft-RoCE included): the GID at index 0, IPv6 link-local. InfiniBand: the LID. */
    static AddressVector of(DeviceContext context) {
        PortAttributes port = context.queryPort(PORT);
        if (port.linkLayer() == LinkLayer.INFINIBAND) {
            return AddressVector.infiniband(PORT, port.lid());
        }
        return AddressVector.roce(PORT, context.queryGid(PORT, 0), 0);
    }

    /** Brings two RC QPs of {@code context}'s port from RESET to RTS, each the other's remote QP. */
    static void connect(DeviceContext context, QueuePair a, QueuePair b) {
        AddressVector path = of(context);
        Mtu mtu = pathMtu(context);
        a.toInit(PORT, QueuePair.remoteReadWrite());
        b.toInit(PORT, QueuePair.remoteReadWrite());
        a.toReadyToReceive(path, b.qpNum(), 0, mtu);
        b.toReadyToReceive(path, a.qpNum(), 0, mtu);
        a.toReadyToSend(0);
        b.toReadyToSend(0);
    }

    static Mtu pathMtu(DeviceContext context) {
        Mtu active = context.queryPort(PORT).activeMtu();
        return active.bytes() < Mtu.MTU_1024.bytes() ? active : Mtu.MTU_1024;
    }
}
