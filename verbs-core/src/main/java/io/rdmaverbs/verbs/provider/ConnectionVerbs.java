package io.rdmaverbs.verbs.provider;

import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The RDMA connection manager, librdmacm ({@code rdma_cm(7)}): event channels, CM ids, address and route
 * resolution, the connection handshake, and QPs on ids. Asynchronous verbs ({@link #resolveAddr},
 * {@link #resolveRoute}, {@link #connect}, {@link #accept}, {@link #disconnect}) report their outcome as
 * an event on the id's channel, which {@link #getEvent} returns and {@link #ackEvent} releases.
 * Failures and handle checks as described on {@link VerbsProvider}.
 *
 * <p>librdmacm opens its own device context per device: {@link #context} exposes it as a
 * {@link ContextHandle} that the caller must never close ({@code ibv_close_device}); PDs, CQs and
 * completion channels for {@link #createQp} must be created in that context.
 */
public interface ConnectionVerbs {

    /** {@code rdma_create_event_channel(3)}. */
    CmChannelHandle createEventChannel();

    /**
     * {@code rdma_destroy_event_channel(3)}: the man page requires every id on the channel to be destroyed
     * and every event acknowledged first, but the call is void and never refuses: closing the channel's
     * descriptor makes the kernel destroy the ids still on it (a connected one disconnects its peer) and
     * drop their events, while their {@code rdma_cm_id} memory is leaked. Only the caller (the resource
     * graph) can refuse it; a provider models the kernel and makes those ids unusable.
     */
    void destroyEventChannel(CmChannelHandle channel);

    /** {@code rdma_create_id(3)} on the channel. */
    CmIdHandle createId(CmChannelHandle channel, CmPortSpace portSpace);

    /**
     * {@code rdma_destroy_id(3)}: a connected id disconnects its peer. librdmacm BLOCKS until every event
     * of the id returned by {@link #getEvent} is acknowledged (for a listening id, its CONNECT_REQUESTs
     * too): a caller must never call it then; the simulated provider refuses it with
     * {@link IllegalStateException} naming the event. The man page requires the id's QP to be destroyed
     * first ({@link #destroyQp}); librdmacm does not check, and the QP is left behind.
     */
    void destroyId(CmIdHandle id);

    /**
     * {@code rdma_bind_addr(3)}: port 0 picks a free port. EADDRINUSE for a port another id of the same
     * port space is bound to on that address; EADDRNOTAVAIL for an address no RDMA device has; EINVAL
     * when the id is already bound.
     */
    void bindAddr(CmIdHandle id, InetSocketAddress address);

    /**
     * {@code rdma_resolve_addr(3)}: binds the id (to {@code source}, or to the device that reaches
     * {@code destination}) and reports ADDR_RESOLVED, or ADDR_ERROR / UNREACHABLE with {@code -ETIMEDOUT}
     * after {@code timeout} when no device answers for the destination.
     */
    void resolveAddr(CmIdHandle id, @Nullable InetSocketAddress source, InetSocketAddress destination,
            Duration timeout);

    /** {@code rdma_resolve_route(3)}, after ADDR_RESOLVED: reports ROUTE_RESOLVED or ROUTE_ERROR. */
    void resolveRoute(CmIdHandle id, Duration timeout);

    /** {@code rdma_listen(3)} on a bound id; requests arrive as CONNECT_REQUEST events with new ids. */
    void listen(CmIdHandle id, int backlog);

    /**
     * {@code rdma_connect(3)}, after ROUTE_RESOLVED: the peer gets CONNECT_REQUEST; this side gets
     * ESTABLISHED, REJECTED (status and the peer's private data) or UNREACHABLE. EINVAL for private data
     * above {@link CmConnectionParams#MAX_CONNECT_PRIVATE_DATA} (RDMA_PS_TCP).
     */
    void connect(CmIdHandle id, CmConnectionParams params);

    /**
     * {@code rdma_accept(3)} on the id of a CONNECT_REQUEST: its QP moves to RTS, and both sides get
     * ESTABLISHED. EINVAL for private data above {@link CmConnectionParams#MAX_ACCEPT_PRIVATE_DATA}.
     */
    void accept(CmIdHandle id, CmConnectionParams params);

    /**
     * {@code rdma_reject(3)} of a CONNECT_REQUEST: the active side gets REJECTED with this private data.
     * EINVAL above {@link CmConnectionParams#MAX_REJECT_PRIVATE_DATA}.
     */
    void reject(CmIdHandle id, byte[] privateData);

    /** {@code rdma_disconnect(3)}: the QP moves to ERR and both sides get DISCONNECTED. */
    void disconnect(CmIdHandle id);

    /**
     * {@code rdma_create_qp(3)}: a QP bound to the id, whose PD and CQs must belong to
     * {@link #context context(id)} (EINVAL otherwise); the CM moves it through INIT, RTR and RTS itself as
     * the connection is made. EINVAL before the id has a device (bind or resolve first).
     */
    QpHandle createQp(CmIdHandle id, QpInitSpec spec);

    /** {@code rdma_destroy_qp(3)}. */
    void destroyQp(CmIdHandle id);

    /**
     * Waits up to {@code timeoutMillis} (negative: without limit) for an event on the channel
     * ({@code poll(2)} on its descriptor, then {@code rdma_get_cm_event(3)}). A zero timeout never blocks
     * and leaves a pending wake to the waiters: it returns the event queued now, or {@code null} (another
     * reader may have taken the one {@link #awaitEventReady} saw).
     *
     * @return the event, held until {@link #ackEvent}, or {@code null} on timeout or wake
     */
    @Nullable CmEventHandle getEvent(CmChannelHandle channel, long timeoutMillis);

    /**
     * Waits up to {@code timeoutMillis} (negative: without limit) until an event can be read from the
     * channel, without reading it ({@code poll(2)} on its descriptor): the caller then reads it with
     * {@code getEvent(channel, 0)}. This lets a caller wait outside the lock it holds while reading, which
     * {@code rdma_destroy_id(3)} of the channel's ids needs (an event read and not yet known to the caller
     * would make that destroy block). Not a verb. An interrupted thread stops waiting with its interrupt
     * status left set.
     *
     * @return true when an event can be read now; false on timeout, wake ({@link #wakeEventWaiters}, which
     *         this wait then consumes) or interrupt
     */
    boolean awaitEventReady(CmChannelHandle channel, long timeoutMillis);

    /** {@code rdma_ack_cm_event(3)}; an event already acknowledged is refused (IllegalStateException). */
    void ackEvent(CmEventHandle event);

    /**
     * Wakes the threads waiting in {@link #getEvent} or {@link #awaitEventReady} on the channel, as
     * {@link CompletionVerbs#wakeCqEventWaiters} does for CQ events (same semantics). Not a verb.
     */
    void wakeEventWaiters(CmChannelHandle channel);

    /**
     * The id's device context ({@code id->verbs}), opened by the CM, never to be closed by the caller;
     * {@code null} until the id is bound or its address resolved.
     */
    @Nullable ContextHandle context(CmIdHandle id);

    /** The QP created on the id with {@link #createQp} ({@code id->qp}), or {@code null}. */
    @Nullable QpHandle qp(CmIdHandle id);

    /** {@code rdma_get_local_addr(3)}, or {@code null} while unbound. */
    @Nullable InetSocketAddress localAddress(CmIdHandle id);

    /** {@code rdma_get_peer_addr(3)}, or {@code null} before an address was resolved or a request came. */
    @Nullable InetSocketAddress peerAddress(CmIdHandle id);

    /**
     * The IP addresses by which the connection manager reaches {@code deviceName}: what
     * {@code rdma_bind_addr(3)} takes to bind an id to that device. Not a verb: librdmacm maps an address
     * to a device through the device's network interface, and has no call for the reverse. The first is
     * port 1's GID 0 as an IPv6 address, scoped to the device's netdev when it is link-local (on RoCE,
     * the netdev's own link-local address, {@code fe80::...%eth0}), which a listener declared by device
     * binds to; a simulated device's further addresses follow. Empty when the device has none (GID 0
     * unset, no netdev); IllegalArgumentException for a device this provider does not have.
     */
    List<InetAddress> addresses(String deviceName);
}
