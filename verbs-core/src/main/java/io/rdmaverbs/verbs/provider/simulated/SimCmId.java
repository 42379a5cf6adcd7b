package io.rdmaverbs.verbs.provider.simulated;

import java.net.InetSocketAddress;

import io.rdmaverbs.verbs.provider.CmChannelHandle;
import io.rdmaverbs.verbs.provider.CmIdHandle;
import io.rdmaverbs.verbs.attr.CmPortSpace;

import org.jspecify.annotations.Nullable;

/**
 * A CM id: the kernel's {@code rdma_id_private} with its state, its binding, the device it resolved to
 * (librdmacm's own context of it), its QP, and its peer id once a request connects the two. Guarded by
 * the {@link SimulatedNetwork}'s lock.
 */
final class SimCmId extends SimCmObject implements CmIdHandle {

    /**
     * {@code enum rdma_cm_state} with the IB CM's state where it matters, as far as the simulation needs it.
     * {@code ACCEPTED}: a request's id that sent its REP ({@code rdma_accept}) and has no RTU yet (the IB CM's
     * {@code REP_SENT}): the requester sends the RTU only as its librdmacm reads the REP.
     */
    enum State { IDLE, BOUND, ADDR_RESOLVED, ROUTE_RESOLVED, LISTEN, CONNECTING, REQUEST, ACCEPTED, CONNECTED,
        DISCONNECTED, REJECTED, UNREACHABLE }

    final SimCmChannel channel;
    final CmPortSpace portSpace;
    State state = State.IDLE;
    @Nullable SimDevice device;
    @Nullable SimContext context;
    @Nullable InetSocketAddress local;
    @Nullable InetSocketAddress peer;
    @Nullable SimQp qp;
    /** The other end of the connection: the active id of a request, or the request's id. */
    @Nullable SimCmId peerId;
    /** Whether this side already sent its DREQ or DREP ({@code rdma_disconnect}). */
    boolean disconnectSent;
    /** The DREQ sender's own DISCONNECTED, queued for when the DREQ's retries end, until the peer's DREP. */
    @Nullable SimCmEvent awaitingReply;
    int backlog;

    SimCmId(SimulatedProvider provider, long serial, SimCmChannel channel, CmPortSpace portSpace) {
        super(provider, serial);
        this.channel = channel;
        this.portSpace = portSpace;
    }

    @Override
    public CmChannelHandle channel() {
        return channel;
    }

    @Override
    public CmPortSpace portSpace() {
        return portSpace;
    }

    @Override
    public String describe() {
        InetSocketAddress at = local;
        return "sim:rdma_cm_id#" + serial + " (" + portSpace + ", " + state.name().toLowerCase(java.util.Locale.ROOT)
                + (at == null ? "" : ", " + at) + ")";
    }
}
