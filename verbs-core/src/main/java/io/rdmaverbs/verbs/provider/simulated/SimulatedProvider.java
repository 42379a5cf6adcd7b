package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.attr.DeviceInfo;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.attr.QpAttributes;
import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;
import io.rdmaverbs.verbs.provider.CompChannelHandle;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.XrcdHandle;

import org.jspecify.annotations.Nullable;

/**
 * A pure-Java model of the kernel ({@code ib_uverbs}, {@code ib_core}, the device driver) and of
 * libibverbs, behind the same interface as the native provider. Not a mock: objects are accounted
 * against the device limits, every refusal is the errno the kernel or libibverbs gives (calibrated
 * against soft-RoCE on kernel 6.1 and rdma-core 44, see {@link Driver}), and data really moves between
 * connected QPs of all devices of one provider, through the native memory their MRs registered.
 *
 * <p>Thread-safe: each device has a lock; verbs on one device's objects take it, verbs that move data or
 * change what a QP accepts (post, modify, destroy QP/SRQ) take every device's lock in a fixed order.
 * Blocking verbs ({@link #getCqEvent}, {@link #destroyCq}, {@link #getAsyncEvent}) wait without
 * holding any lock.
 *
 * <p>Besides the verbs it offers simulation hooks for tests: {@link #setPortState},
 * {@link #injectDeviceFatal}, and inspection like {@code rdma resource show}: {@link #resourceCounts},
 * {@link #leakedObjects}.
 */
public final class SimulatedProvider implements VerbsProvider {

    /** {@code ENODATA}: an empty GID table entry (the project's {@link Errno} has no constant for it). */
    static final Errno ENODATA = Errno.ENODATA;

    private final SimDeviceVerbs deviceVerbs;
    private final SimDomains domains;
    private final SimCompletionVerbs completionVerbs;
    private final SimSrqVerbs srqVerbs;
    private final SimQpVerbs qpVerbs;
    private final SimQpStateVerbs qpStateVerbs;
    private final SimPostVerbs postVerbs;
    private final SimMrVerbs mrVerbs;
    private final SimAhVerbs ahVerbs;
    private final SimAsyncEvents asyncEvents;

    private SimulatedProvider(List<DeviceProfile> profiles) {
        List<SimDevice> devices = SimDeviceVerbs.devicesOf(profiles);
        // One uverbs layer (handle checks, device and fabric locks) and one descriptor table for all groups.
        SimUverbs uverbs = new SimUverbs(this, new Fabric(devices));
        DescriptorTable descriptors = new DescriptorTable();
        this.deviceVerbs = new SimDeviceVerbs(uverbs, devices);
        this.domains = new SimDomains(uverbs, descriptors);
        this.completionVerbs = new SimCompletionVerbs(uverbs, descriptors);
        this.srqVerbs = new SimSrqVerbs(uverbs);
        this.qpVerbs = new SimQpVerbs(uverbs);
        this.qpStateVerbs = new SimQpStateVerbs(uverbs);
        this.postVerbs = new SimPostVerbs(uverbs);
        this.mrVerbs = new SimMrVerbs(uverbs);
        this.ahVerbs = new SimAhVerbs(uverbs);
        this.asyncEvents = new SimAsyncEvents(uverbs, deviceVerbs);
    }

    /** A provider with these devices, all on one simulated fabric. */
    public static SimulatedProvider of(DeviceProfile... profiles) {
        return new SimulatedProvider(List.of(profiles));
    }

    public static SimulatedProvider of(List<DeviceProfile> profiles) {
        return new SimulatedProvider(List.copyOf(profiles));
    }

    @Override
    public String name() {
        return "simulated";
    }

    /** The profiles of this provider's devices, in {@link #devices()} order. */
    public List<DeviceProfile> profiles() {
        return deviceVerbs.all().stream().map(d -> d.profile).toList();
    }

    // ---- devices -------------------------------------------------------------------------------

    @Override
    public List<DeviceInfo> devices() {
        return deviceVerbs.devices();
    }

    @Override
    public ContextHandle openDevice(DeviceInfo device) {
        return deviceVerbs.openDevice(device);
    }

    /**
     * {@code ibv_close_device} succeeds with objects still alive, and does not free them: they stay in
     * the device's accounting, unusable, and are reported by {@link #leakedObjects()}. (In the kernel the
     * uverbs file is released only when its last reference goes; the queue buffers rdma-core maps hold
     * such references until the process exits.)
     */
    @Override
    public void closeDevice(ContextHandle context) {
        deviceVerbs.closeDevice(context);
    }

    @Override
    public DeviceAttributes queryDevice(ContextHandle context) {
        return deviceVerbs.queryDevice(context);
    }

    @Override
    public PortAttributes queryPort(ContextHandle context, int port) {
        return deviceVerbs.queryPort(context, port);
    }

    /** An index inside the table whose entry is empty reads as the zero GID (libibverbs maps ENODATA to it). */
    @Override
    public Gid queryGid(ContextHandle context, int port, int index) {
        return deviceVerbs.queryGid(context, port, index);
    }

    // ---- protection and XRC domains -----------------------------------------------------------

    @Override
    public PdHandle allocPd(ContextHandle context) {
        return domains.allocPd(context);
    }

    @Override
    public void deallocPd(PdHandle pd) {
        domains.deallocPd(pd);
    }

    @Override
    public int openFile(Path file, boolean create) {
        return domains.openFile(file, create);
    }

    @Override
    public void closeFile(int fd) {
        domains.closeFile(fd);
    }

    /**
     * {@code ibv_open_xrcd}, as the kernel's {@code ib_uverbs_open_xrcd} decides: a domain is shared per
     * device by inode; O_CREAT creates it, O_CREAT|O_EXCL refuses an existing one (EINVAL), no O_CREAT
     * and no domain is EAGAIN, an unknown descriptor EBADF.
     *
     * <p>{@code fd == -1} opens a new private domain whatever {@code oflags} say: the kernel skips the
     * flag checks for it and rdma-core adds none (the man page's "use O_CREAT" is advice, not a check).
     */
    @Override
    public XrcdHandle openXrcd(ContextHandle context, int fd, int oflags) {
        return domains.openXrcd(context, fd, oflags);
    }

    @Override
    public void closeXrcd(XrcdHandle xrcd) {
        domains.closeXrcd(xrcd);
    }

    // ---- completion channels and CQs ------------------------------------------------------------

    @Override
    public CompChannelHandle createCompChannel(ContextHandle context) {
        return completionVerbs.createCompChannel(context);
    }

    /** libibverbs refuses while CQs were created on the channel ({@code channel->refcnt}), even after a fatal error. */
    @Override
    public void destroyCompChannel(CompChannelHandle channel) {
        completionVerbs.destroyCompChannel(channel);
    }

    @Override
    public CqHandle createCq(ContextHandle context, int cqe, @Nullable CompChannelHandle channel, int compVector) {
        return completionVerbs.createCq(context, cqe, channel, compVector);
    }

    /**
     * {@code ibv_destroy_cq}: EBUSY while QPs or XRC SRQs use the CQ. Otherwise the kernel object goes,
     * and then - like libibverbs' {@code ibv_cmd_destroy_cq} - this call BLOCKS until every completion
     * event {@link #getCqEvent} returned for the CQ has been acknowledged with {@link #ackCqEvents}, by
     * this or another thread. Events still queued on the channel and not yet returned are discarded.
     *
     * <p>The wait is interruptible (libibverbs' is not): an interrupt ends it with EINTR, the interrupt
     * flag set again, and the handle left alive but usable only for {@link #ackCqEvents} and another
     * {@code destroyCq}, which resumes the wait. After a fatal device error it does not wait.
     */
    @Override
    public void destroyCq(CqHandle cq) {
        completionVerbs.destroyCq(cq);
    }

    @Override
    public void reqNotifyCq(CqHandle cq, boolean solicitedOnly) {
        completionVerbs.reqNotifyCq(cq, solicitedOnly);
    }

    /** Works after a fatal device error too: polling reads user-mapped memory, no system call. */
    @Override
    public int pollCq(CqHandle cq, WorkCompletions completions, int max) {
        return completionVerbs.pollCq(cq, completions, max);
    }

    @Override
    public WorkCompletions newWorkCompletions(int capacity) {
        return new SimWorkCompletions(this, capacity);
    }

    /** Negative {@code timeoutMillis} waits without limit, like {@code poll(2)}. */
    @Override
    public @Nullable CqHandle getCqEvent(CompChannelHandle channel, long timeoutMillis) {
        return completionVerbs.getCqEvent(channel, timeoutMillis);
    }

    @Override
    public void wakeCqEventWaiters(CompChannelHandle channel) {
        completionVerbs.wakeCqEventWaiters(channel);
    }

    /** Acknowledging more events than {@link #getCqEvent} returned and were not yet acknowledged is a caller bug. */
    @Override
    public void ackCqEvents(CqHandle cq, int count) {
        completionVerbs.ackCqEvents(cq, count);
    }

    // ---- shared receive queues ------------------------------------------------------------------

    @Override
    public SrqHandle createSrq(ContextHandle context, SrqInitSpec spec) {
        return srqVerbs.createSrq(context, spec);
    }

    @Override
    public void destroySrq(SrqHandle srq) {
        srqVerbs.destroySrq(srq);
    }

    @Override
    public void postSrqRecv(SrqHandle srq, RecvWr request) {
        postVerbs.postSrqRecv(srq, request);
    }

    // ---- queue pairs ----------------------------------------------------------------------------

    @Override
    public QpHandle createQp(ContextHandle context, QpInitSpec spec) {
        return qpVerbs.createQp(context, spec);
    }

    /** {@code ibv_open_qp}: registers this context with an XRC receive QP of the domain. */
    @Override
    public QpHandle openQp(ContextHandle context, XrcdHandle xrcd, int qpNum, QpType type) {
        return qpVerbs.openQp(context, xrcd, qpNum, type);
    }

    /**
     * {@code ibv_destroy_qp}: EBUSY while the handle has multicast attachments. For an XRC receive QP it
     * drops this context's registration; the QP itself goes with the last one.
     */
    @Override
    public void destroyQp(QpHandle qp) {
        qpVerbs.destroyQp(qp);
    }

    /**
     * {@code ibv_modify_qp}, checked in the kernel's order: ports ({@code modify_qp} in uverbs), the
     * address vector (a RoCE path needs a GRH and a populated source GID), the transition table
     * ({@link QpTransitions}), then the driver's limits (path MTU, RDMA read depth). Entering ERR
     * flushes both queues with WR_FLUSH_ERR completions; entering RESET drops them.
     */
    @Override
    public void modifyQp(QpHandle qp, QpModification modification) {
        qpStateVerbs.modifyQp(qp, modification);
    }

    @Override
    public QpAttributes queryQp(QpHandle qp) {
        return qpStateVerbs.queryQp(qp);
    }

    /**
     * {@code ibv_post_send}. Before RTS it fails with EINVAL as on rxe: the WQE is written to the
     * user-mapped queue, but the doorbell system call finds the requester not ready and returns EINVAL,
     * and the WR never runs (observed). In ERR (or SQE) the WR is accepted and flushed.
     */
    @Override
    public void postSend(QpHandle qp, SendWr request) {
        postVerbs.postSend(qp, request);
    }

    /**
     * {@code ibv_post_recv}: EINVAL in RESET (rdma-core's rxe checks {@code qp->state}), for a QP
     * receiving through an SRQ, and for XRC QPs (no receive queue). Posted in ERR it is queued and, on
     * rxe 6.1, never flushed (see {@link Driver#flushesReceivesPostedInError()}).
     */
    @Override
    public void postRecv(QpHandle qp, RecvWr request) {
        postVerbs.postRecv(qp, request);
    }

    @Override
    public SendWr newSendWr(int maxSge) {
        return new SimSendWr(this, maxSge);
    }

    @Override
    public RecvWr newRecvWr(int maxSge) {
        return new SimRecvWr(this, maxSge);
    }

    /**
     * {@code ibv_attach_mcast}: a UD QP and a multicast GID ({@code ff00::/8}); on InfiniBand ports the
     * LID must be a multicast LID. Attaching the same (GID, LID) twice succeeds once.
     */
    @Override
    public void attachMcast(QpHandle qp, Gid gid, int lid) {
        qpVerbs.attachMcast(qp, gid, lid);
    }

    @Override
    public void detachMcast(QpHandle qp, Gid gid, int lid) {
        qpVerbs.detachMcast(qp, gid, lid);
    }

    // ---- memory regions and address handles -----------------------------------------------------

    /**
     * {@code ibv_reg_mr}: the kernel's {@code ib_check_mr_access} (remote write or atomic need local
     * write), zero length is EINVAL ({@code ib_umem_get}), heap memory cannot be registered at all. Data
     * movement later reads and writes through this segment, so its arena must stay open and be
     * accessible from the posting threads (shared or global arenas).
     */
    @Override
    public MrHandle regMr(PdHandle pd, MemorySegment buffer, int access) {
        return mrVerbs.regMr(pd, buffer, access);
    }

    @Override
    public void deregMr(MrHandle mr) {
        mrVerbs.deregMr(mr);
    }

    @Override
    public AhHandle createAh(PdHandle pd, AddressVector address) {
        return ahVerbs.createAh(pd, address);
    }

    @Override
    public void destroyAh(AhHandle ah) {
        ahVerbs.destroyAh(ah);
    }

    // ---- async events ---------------------------------------------------------------------------

    /**
     * Negative {@code timeoutMillis} waits without limit. After a fatal device error the queued events
     * (DEVICE_FATAL among them) are still returned; then EIO.
     */
    @Override
    public @Nullable AsyncEventRecord getAsyncEvent(ContextHandle context, long timeoutMillis) {
        return asyncEvents.getAsyncEvent(context, timeoutMillis);
    }

    @Override
    public void wakeAsyncEventWaiters(ContextHandle context) {
        asyncEvents.wakeAsyncEventWaiters(context);
    }

    // ---- simulation hooks -------------------------------------------------------------------------

    /**
     * Changes a port's state, as a cable pull or {@code ip link set down} would: {@code ibv_query_port}
     * reports it, every open context of the device gets IBV_EVENT_PORT_ERR (leaving ACTIVE) or
     * IBV_EVENT_PORT_ACTIVE (entering it), and traffic through a port that is not ACTIVE is lost (RC
     * requesters fail with RETRY_EXC_ERR).
     */
    public void setPortState(String deviceName, int port, PortState state) {
        asyncEvents.setPortState(deviceName, port, state);
    }

    /**
     * Kills a device, as a firmware fatal error or a hot unplug does: every open context gets
     * IBV_EVENT_DEVICE_FATAL; its QPs move to the error state and flush their WRs (as mlx5 does in its
     * internal-error state); from then on every verb on the device fails with EIO except the destroys,
     * which succeed without their EBUSY checks (rdma-core treats EIO from a destroy as success after a
     * disassociation). {@code ibv_destroy_comp_channel} keeps libibverbs' own CQ check.
     */
    public void injectDeviceFatal(String deviceName) {
        asyncEvents.injectDeviceFatal(deviceName);
    }

    /** Whether {@link #injectDeviceFatal} was called for the device. */
    public boolean isFatal(String deviceName) {
        return deviceVerbs.device(deviceName).fatal;
    }

    /** The device's live kernel objects, like {@code rdma resource show}. */
    public ResourceCounts resourceCounts(String deviceName) {
        SimDevice d = deviceVerbs.device(deviceName);
        return locked(d, d::counts);
    }

    /** Objects left alive by {@code ibv_close_device}, on all devices, oldest first. */
    public List<LeakedObject> leakedObjects() {
        List<LeakedObject> all = new ArrayList<>();
        for (SimDevice d : deviceVerbs.all()) {
            locked(d, () -> all.addAll(d.leaks));
        }
        return List.copyOf(all);
    }
}
