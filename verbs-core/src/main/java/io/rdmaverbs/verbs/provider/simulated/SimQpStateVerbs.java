package io.rdmaverbs.verbs.provider.simulated;

import java.util.Objects;

import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.QpAttributeMask;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpTransitions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.QpHandle;

/**
 * QP state transitions: {@code ibv_modify_qp} checked in the kernel's order against
 * {@link QpTransitions} and the device's limits, and {@code ibv_query_qp}.
 */
final class SimQpStateVerbs {

    private final SimUverbs uverbs;
    private final Fabric fabric;

    SimQpStateVerbs(SimUverbs uverbs) {
        this.uverbs = uverbs;
        this.fabric = uverbs.fabric;
    }

    /**
     * {@code ibv_modify_qp}, checked in the kernel's order: ports ({@code modify_qp} in uverbs), the
     * address vector (a RoCE path needs a GRH and a populated source GID), the transition table
     * ({@link QpTransitions}), then the driver's limits (path MTU, RDMA read depth). Entering ERR
     * flushes both queues with WR_FLUSH_ERR completions; entering RESET drops them.
     */
    void modifyQp(QpHandle qp, QpModification modification) {
        SimQp h = uverbs.own(qp, SimQp.class);
        Objects.requireNonNull(modification, "modification");
        uverbs.call("ibv_modify_qp", h);
        SimDevice d = h.device;
        String verb = "ibv_modify_qp";
        uverbs.onFabric(() -> {
            h.requireUsable();
            d.requireAlive(verb, h.describe());
            KernelQp q = h.qp;
            QpModification m = modification;
            QpState current = q.state;
            QpState next = m.has(QpAttributeMask.STATE) ? m.state() : current;
            if (m.has(QpAttributeMask.PORT) && !d.hasPort(m.port())) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "port " + m.port() + " does not exist on "
                        + d.name() + " (ports 1.." + d.profile.ports().size() + ")");
            }
            AddressVector av = m.addressVector();
            if (m.has(QpAttributeMask.AV) && av != null) {
                if (!d.hasPort(av.portNumber())) {
                    throw new VerbsException(verb, h.describe(), Errno.EINVAL, "the path's port " + av.portNumber()
                            + " does not exist on " + d.name());
                }
                if (next == QpState.RTR && av.portNumber() != q.port) {
                    throw new VerbsException(verb, h.describe(), Errno.EINVAL, "the path leaves from port "
                            + av.portNumber() + " but the QP was bound to port " + q.port + " in RESET->INIT");
                }
                SimAhVerbs.checkAddress(verb, h.describe(), d, av);
            }
            QpTransitions.Rejection rejection = QpTransitions.check(current, q.type, m).orElse(null);
            if (rejection != null) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, rejection.explanation());
            }
            int port = m.has(QpAttributeMask.PORT) ? m.port() : q.port;
            if (m.has(QpAttributeMask.PATH_MTU) && d.hasPort(port)
                    && m.pathMtu().value() > d.profile.port(port).maxMtu().value()) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "path MTU " + m.pathMtu().bytes()
                        + " is above port " + port + "'s max MTU " + d.profile.port(port).maxMtu().bytes());
            }
            int maxAtomic = d.profile.attributes().maxQpRdAtom();
            if ((m.has(QpAttributeMask.MAX_QP_RD_ATOMIC) && m.maxRdAtomic() > maxAtomic)
                    || (m.has(QpAttributeMask.MAX_DEST_RD_ATOMIC) && m.maxDestRdAtomic() > maxAtomic)) {
                throw new VerbsException(verb, h.describe(), Errno.EINVAL, "RDMA read/atomic depth above the"
                        + " device's max_qp_rd_atom " + maxAtomic);
            }
            q.apply(m);
            switch (next) {
                case RESET -> fabric.reset(q);
                case ERR -> fabric.moveToError(q);
                case RTS -> fabric.pump(q);
                default -> {
                }
            }
            fabric.pumpStalled();
        });
    }

    QpAttributes queryQp(QpHandle qp) {
        SimQp h = uverbs.own(qp, SimQp.class);
        uverbs.call("ibv_query_qp", h);
        SimDevice d = h.device;
        return uverbs.onFabric(() -> {
            h.requireUsable();
            d.requireAlive("ibv_query_qp", h.describe());
            return h.qp.attributes();
        });
    }
}
