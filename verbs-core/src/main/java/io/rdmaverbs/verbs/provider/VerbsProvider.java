package io.rdmaverbs.verbs.provider;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpType;

import org.jspecify.annotations.Nullable;

/**
 * The verbs, one method each, on provider handles. Implementations are thread-safe in the sense
 * libibverbs is: calls on different objects may run concurrently; lifetime (never destroying an
 * object another thread is using) is the caller's responsibility, which the resource graph takes.
 *
 * <p>Every method either succeeds or throws {@link VerbsException} naming the verb and the errno.
 * Every method rejects, with {@link IllegalArgumentException} and before any native call, a handle
 * this provider did not create, and, with {@link IllegalStateException}, one it already destroyed;
 * except the wakes ({@link #wakeAsyncEventWaiters}, {@link #wakeCqEventWaiters}), which may race with a
 * destroy and do nothing on a destroyed handle.
 */
public interface VerbsProvider {

    /** {@code native} or {@code simulated}. */
    String name();

    // ---- devices -------------------------------------------------------------------------------

    /** {@code ibv_get_device_list}: the devices present; empty (not an error) when there are none. */
    List<DeviceInfo> devices();

    /** {@code ibv_open_device}. */
    ContextHandle openDevice(DeviceInfo device);

    /** {@code ibv_close_device}. */
    void closeDevice(ContextHandle context);

    /** {@code ibv_query_device} (and {@code num_comp_vectors} of the context). */
    DeviceAttributes queryDevice(ContextHandle context);

    /** {@code ibv_query_port}; EINVAL for a port the device does not have. */
    PortAttributes queryPort(ContextHandle context, int port);

    /** {@code ibv_query_gid}. */
    Gid queryGid(ContextHandle context, int port, int index);

    // ---- protection and XRC domains -----------------------------------------------------------

    /** {@code ibv_alloc_pd}. */
    PdHandle allocPd(ContextHandle context);

    /** {@code ibv_dealloc_pd}; EBUSY while QPs, SRQs, MRs or AHs use it. */
    void deallocPd(PdHandle pd);

    /**
     * {@code open(2)} of the file whose inode names a shared XRC domain (read-only, {@code O_CREAT}
     * when asked). The simulated provider keeps its own descriptor table.
     */
    int openFile(Path file, boolean create);

    /** {@code close(2)} of a descriptor from {@link #openFile}. */
    void closeFile(int fd);

    /**
     * {@code ibv_open_xrcd} (static inline: dispatched through {@code struct verbs_context}).
     *
     * @param fd a descriptor from {@link #openFile}, or -1 for a domain private to this context
     * @param oflags {@code O_CREAT} and/or {@code O_EXCL}
     */
    XrcdHandle openXrcd(ContextHandle context, int fd, int oflags);

    /** {@code ibv_close_xrcd}; EBUSY while XRC QPs or SRQs (this process's) use it. */
    void closeXrcd(XrcdHandle xrcd);

    // ---- completion channels and CQs ------------------------------------------------------------

    /** {@code ibv_create_comp_channel}. */
    CompChannelHandle createCompChannel(ContextHandle context);

    /** {@code ibv_destroy_comp_channel}; EBUSY while a CQ is associated with it. */
    void destroyCompChannel(CompChannelHandle channel);

    /** {@code ibv_create_cq}; EINVAL for {@code cqe} above {@code max_cqe} or a bad {@code compVector}. */
    CqHandle createCq(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector);

    /**
     * {@code ibv_destroy_cq}; EBUSY while QPs or SRQs use it. Blocks forever while events returned by
     * {@link #getCqEvent} are not acknowledged: callers must never call it then.
     */
    void destroyCq(CqHandle cq);

    /** {@code ibv_req_notify_cq} (inline: {@code cq->context->ops.req_notify_cq}). */
    void reqNotifyCq(CqHandle cq, boolean solicitedOnly);

    /**
     * {@code ibv_poll_cq} (inline: {@code cq->context->ops.poll_cq}) into entries {@code 0..max-1} of
     * {@code completions}. Allocates nothing.
     *
     * @return the number of completions written
     */
    int pollCq(CqHandle cq, WorkCompletions completions, int max);

    /** A completion buffer for {@link #pollCq} in this provider's format. */
    WorkCompletions newWorkCompletions(int capacity);

    /**
     * Waits up to {@code timeoutMillis} for a completion event on the channel ({@code poll(2)} on the
     * channel's descriptor, then {@code ibv_get_cq_event}).
     *
     * @return the CQ the event is for (its event must be acknowledged), or {@code null} on timeout
     */
    @Nullable CqHandle getCqEvent(CompChannelHandle channel, long timeoutMillis);

    /**
     * Wakes the threads waiting in {@link #getCqEvent} on the channel: each returns {@code null}
     * promptly, as on a timeout (an event already there may be returned instead). Like an
     * {@code eventfd(2)}, a wake that finds no waiter is kept and ends the next wait, and only that
     * one (however many wakes came). Safe from any thread, and never blocks. Not a verb: nothing of
     * libibverbs is touched.
     *
     * <p>A no-op on a destroyed channel (so it may race with {@link #destroyCompChannel}); a handle
     * this provider did not create is still rejected with {@link IllegalArgumentException}.
     */
    void wakeCqEventWaiters(CompChannelHandle channel);

    /** {@code ibv_ack_cq_events}. */
    void ackCqEvents(CqHandle cq, int count);

    // ---- shared receive queues ------------------------------------------------------------------

    /** {@code ibv_create_srq_ex} (inline through {@code verbs_context}; basic SRQs use {@code ibv_create_srq}). */
    SrqHandle createSrq(ContextHandle context, SrqInitSpec spec);

    /** {@code ibv_destroy_srq}; EBUSY while QPs use it. */
    void destroySrq(SrqHandle srq);

    /** {@code ibv_post_srq_recv} (inline: {@code srq->context->ops.post_srq_recv}). */
    void postSrqRecv(SrqHandle srq, RecvWr request);

    // ---- queue pairs ----------------------------------------------------------------------------

    /** {@code ibv_create_qp_ex} (inline through {@code verbs_context}). */
    QpHandle createQp(ContextHandle context, QpInitSpec spec);

    /**
     * {@code ibv_open_qp}: a handle (and a registration of this process) on an existing XRC receive QP
     * of {@code xrcd}; EINVAL when no such QP exists in that domain.
     */
    QpHandle openQp(ContextHandle context, XrcdHandle xrcd, int qpNum, QpType type);

    /** {@code ibv_destroy_qp}; EBUSY while attached to a multicast group. */
    void destroyQp(QpHandle qp);

    /** {@code ibv_modify_qp}. */
    void modifyQp(QpHandle qp, QpModification modification);

    /** {@code ibv_query_qp}. */
    QpAttributes queryQp(QpHandle qp);

    /** {@code ibv_post_send} (inline: {@code qp->context->ops.post_send}). */
    void postSend(QpHandle qp, SendWr request);

    /** {@code ibv_post_recv} (inline: {@code qp->context->ops.post_recv}). */
    void postRecv(QpHandle qp, RecvWr request);

    /** A send request in this provider's format with room for {@code maxSge} entries. */
    SendWr newSendWr(int maxSge);

    /** A receive request in this provider's format with room for {@code maxSge} entries. */
    RecvWr newRecvWr(int maxSge);

    /** {@code ibv_attach_mcast}. */
    void attachMcast(QpHandle qp, Gid gid, int lid);

    /** {@code ibv_detach_mcast}. */
    void detachMcast(QpHandle qp, Gid gid, int lid);

    // ---- memory regions and address handles -----------------------------------------------------

    /** {@code ibv_reg_mr} on a native segment, with {@link io.rdmaverbs.verbs.attr.AccessFlag} bits. */
    MrHandle regMr(PdHandle pd, MemorySegment buffer, int access);

    /** {@code ibv_dereg_mr}. */
    void deregMr(MrHandle mr);

    /** {@code ibv_create_ah}. */
    AhHandle createAh(PdHandle pd, AddressVector address);

    /** {@code ibv_destroy_ah}. */
    void destroyAh(AhHandle ah);

    // ---- async events ---------------------------------------------------------------------------

    /**
     * Waits up to {@code timeoutMillis} for an async event of the context ({@code poll(2)} on its
     * {@code async_fd}, then {@code ibv_get_async_event}, copied and {@code ibv_ack_async_event}ed).
     *
     * @return the event, or {@code null} on timeout
     */
    @Nullable AsyncEventRecord getAsyncEvent(ContextHandle context, long timeoutMillis);

    /**
     * Wakes the threads waiting in {@link #getAsyncEvent} on the context: each returns {@code null}
     * promptly, as on a timeout (an event already there may be returned instead). Like an
     * {@code eventfd(2)}, a wake that finds no waiter is kept and ends the next wait, and only that
     * one (however many wakes came). Safe from any thread, and never blocks. Not a verb: nothing of
     * libibverbs is touched.
     *
     * <p>A no-op on a closed context (so it may race with {@link #closeDevice}); a handle this
     * provider did not create is still rejected with {@link IllegalArgumentException}.
     */
    void wakeAsyncEventWaiters(ContextHandle context);
}
