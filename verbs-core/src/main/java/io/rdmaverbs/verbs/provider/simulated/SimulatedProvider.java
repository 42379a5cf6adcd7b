package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.SimUverbs.locked;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.provider.AddressHandleVerbs;
import io.rdmaverbs.verbs.provider.AsyncEventVerbs;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MemoryRegionVerbs;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.VerbsProvider;

/**
 * A pure-Java model of the kernel ({@code ib_uverbs}, {@code ib_core}, the device driver) and of
 * libibverbs, behind the same interface as the native provider. Not a mock: objects are accounted
 * against the device limits, every refusal is the errno the kernel or libibverbs gives (calibrated
 * against soft-RoCE on kernel 6.1 and rdma-core 44, see {@link Driver}), and data really moves between
 * connected QPs of all devices of one provider, through the native memory their MRs registered.
 *
 * <p>Thread-safe: each device has a lock; verbs on one device's objects take it, verbs that move data or
 * change what a QP accepts (post, modify, destroy QP/SRQ) take every device's lock in a fixed order.
 * Blocking verbs ({@link CompletionVerbs#getCqEvent}, {@link CompletionVerbs#destroyCq},
 * {@link AsyncEventVerbs#getAsyncEvent}) wait without holding any lock.
 *
 * <p>Its connection manager ({@link #connectionVerbs}) is librdmacm's behaviour on rxe, over the
 * {@link SimulatedNetwork} the provider is a host of ({@link #on}: two providers, two hosts).
 *
 * <p>Besides the verbs it offers simulation hooks for tests: {@link #setPortState},
 * {@link #injectDeviceFatal}, the {@link #faults() fault plan}, {@link #widenLibrdmacmRaces}, and inspection like
 * {@code rdma resource show}: {@link #resourceCounts}, {@link #leakedObjects}; and what would have crashed a real
 * process, {@link #freedMemoryUses}.
 */
public final class SimulatedProvider implements VerbsProvider {

    private final SimDeviceVerbs deviceVerbs;
    private final SimDomains domains;
    private final SimCompletionVerbs completionVerbs;
    private final SimSrqVerbs srqVerbs;
    private final SimQpVerbs qpVerbs;
    private final SimMrVerbs mrVerbs;
    private final SimAhVerbs ahVerbs;
    private final SimAsyncEvents asyncEvents;
    private final SimConnectionVerbs connectionVerbs;
    private final FaultPlan faults;
    private final List<FreedMemoryUse> freedMemoryUses = new CopyOnWriteArrayList<>();

    private SimulatedProvider(SimulatedNetwork network, List<DeviceProfile> profiles) {
        List<SimDevice> devices = SimDeviceVerbs.devicesOf(profiles);
        // One uverbs layer (handle checks, device and fabric locks) and one descriptor table for all groups.
        SimUverbs uverbs = new SimUverbs(this, network.fabric);
        DescriptorTable descriptors = new DescriptorTable();
        this.deviceVerbs = new SimDeviceVerbs(uverbs, devices);
        this.domains = new SimDomains(uverbs, descriptors);
        this.completionVerbs = new SimCompletionVerbs(uverbs, descriptors);
        this.srqVerbs = new SimSrqVerbs(uverbs);
        this.qpVerbs = new SimQpVerbs(uverbs);
        this.mrVerbs = new SimMrVerbs(uverbs);
        this.ahVerbs = new SimAhVerbs(uverbs);
        this.asyncEvents = new SimAsyncEvents(uverbs, deviceVerbs);
        this.connectionVerbs = new SimConnectionVerbs(uverbs, network, deviceVerbs, qpVerbs, descriptors);
        this.faults = uverbs.faults;
        network.join(connectionVerbs, devices);
    }

    /** A provider with these devices, all on one simulated fabric, alone on its network. */
    public static SimulatedProvider of(DeviceProfile... profiles) {
        return of(List.of(profiles));
    }

    public static SimulatedProvider of(List<DeviceProfile> profiles) {
        return new SimulatedProvider(SimulatedNetwork.create(), List.copyOf(profiles));
    }

    /**
     * A provider whose devices join {@code network}, as a second host on the same wire: its QPs reach
     * the other hosts' QPs and its CM ids connect to theirs. Device GUIDs (and so GIDs and link-local
     * addresses) must differ from those already on the network.
     */
    public static SimulatedProvider on(SimulatedNetwork network, DeviceProfile... profiles) {
        return new SimulatedProvider(network, List.of(profiles));
    }

    @Override
    public String name() {
        return "simulated";
    }

    /** The profiles of this provider's devices, in {@link DeviceVerbs#devices()} order. */
    public List<DeviceProfile> profiles() {
        return deviceVerbs.all().stream().map(d -> d.profile).toList();
    }

    @Override
    public DeviceVerbs deviceVerbs() {
        return deviceVerbs;
    }

    @Override
    public DomainVerbs domainVerbs() {
        return domains;
    }

    @Override
    public CompletionVerbs completionVerbs() {
        return completionVerbs;
    }

    @Override
    public SharedReceiveQueueVerbs sharedReceiveQueueVerbs() {
        return srqVerbs;
    }

    @Override
    public QueuePairVerbs queuePairVerbs() {
        return qpVerbs;
    }

    @Override
    public MemoryRegionVerbs memoryRegionVerbs() {
        return mrVerbs;
    }

    @Override
    public AddressHandleVerbs addressHandleVerbs() {
        return ahVerbs;
    }

    @Override
    public AsyncEventVerbs asyncEventVerbs() {
        return asyncEvents;
    }

    @Override
    public ConnectionVerbs connectionVerbs() {
        return connectionVerbs;
    }

    SimConnectionVerbs cm() {
        return connectionVerbs;
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

    /**
     * The provider's one fault plan: which of its verb calls fail, and how many it has counted. Empty
     * (nothing fails) until a test plans a fault.
     */
    public FaultPlan faults() {
        return faults;
    }

    /** Whether {@link #injectDeviceFatal} was called for the device. */
    public boolean isFatal(String deviceName) {
        return deviceVerbs.device(deviceName).fatal;
    }

    /** The device's IP addresses on its network: its link-local address first, then those added. */
    public List<InetAddress> addresses(String deviceName) {
        return connectionVerbs.addresses(deviceName);
    }

    /**
     * Gives the device another address, as {@code ip addr add} on its netdev does; refused when a device
     * of the network already has it.
     */
    public void addAddress(String deviceName, InetAddress address) {
        connectionVerbs.addAddress(deviceName, address);
    }

    /**
     * Turns neighbour discovery of the device's netdev on or off, as {@code ip link set dev X arp on|off}
     * does (on by default, as on an Ethernet netdev; off models soft-RoCE on a {@code dummy} netdev):
     * it decides what {@code rdma_resolve_addr} answers for an address nobody has (ADDR_ERROR when on;
     * ADDR_RESOLVED, then UNREACHABLE for the connect, when off).
     */
    public void setArp(String deviceName, boolean enabled) {
        connectionVerbs.setArp(deviceName, enabled);
    }

    /**
     * How long the simulated IB CM resends an unanswered REQ (then UNREACHABLE) or DREQ (then the
     * sender's DISCONNECTED) before it gives up; about 100 s by default, as on rxe.
     */
    public void setCmRetryTimeout(Duration timeout) {
        connectionVerbs.setCmRetryTimeout(timeout);
    }

    /**
     * Holds (or lets go of) this host's CM events, as a reading thread that is not scheduled would: while
     * held, {@code rdma_get_cm_event} and the {@code poll(2)} before it find nothing due, while the kernel's
     * side of every id moves on and its events queue. Events held are returned in order once let go. A test
     * holds them to widen the window between an event's arrival and its read, which a loaded machine opens
     * only now and then (a connection accepted, its peer connected, its own ESTABLISHED not read yet).
     */
    public void holdCmEvents(boolean held) {
        connectionVerbs.holdEvents(held);
    }

    /**
     * The device's contexts that the connection manager opened for itself (librdmacm's, which live as
     * long as the process and which {@link ResourceCounts#contexts()} includes): 0 or 1.
     */
    public int connectionManagerContexts(String deviceName) {
        SimDevice d = deviceVerbs.device(deviceName);
        return locked(d, () -> (int) d.contexts.stream().filter(c -> c.ownedByConnectionManager).count());
    }

    /** The CM ids of this host not destroyed yet, like {@code rdma resource show cm_id}. */
    public int liveCmIds() {
        return connectionVerbs.liveIds();
    }

    /** The device's live kernel objects, like {@code rdma resource show}. */
    public ResourceCounts resourceCounts(String deviceName) {
        SimDevice d = deviceVerbs.device(deviceName);
        return locked(d, d::counts);
    }

    /**
     * RNR NAKs the device's requesters received: a SEND that found no receive posted, as rxe's
     * {@code hw_counters/rcvd_rnr_err} counts them. A protocol with credits keeps it at zero.
     */
    public long rnrNaksReceived(String deviceName) {
        return deviceVerbs.device(deviceName).rnrNaksReceived();
    }

    /** Objects left alive by {@code ibv_close_device}, on all devices, oldest first. */
    public List<LeakedObject> leakedObjects() {
        List<LeakedObject> all = new ArrayList<>();
        for (SimDevice d : deviceVerbs.all()) {
            locked(d, () -> all.addAll(d.leaks));
        }
        return List.copyOf(all);
    }

    /**
     * Widens the gap between librdmacm's load of {@code id->qp} and its use of that QP in the verbs that
     * reach the QP through the id ({@code rdma_disconnect}, {@code rdma_accept}, {@code rdma_connect}):
     * librdmacm takes no lock there, so a caller that lets {@code rdma_destroy_qp} run meanwhile frees the
     * QP under the call. Zero by default; a close-race test widens it so that a missing serialisation
     * shows on every run ({@link #freedMemoryUses()}) instead of once in many.
     */
    public void widenLibrdmacmRaces(Duration gap) {
        connectionVerbs.widenIdQpGap(gap);
    }

    /**
     * The uses of freed objects this provider saw, oldest first: each would have crashed a real process.
     * Empty unless a caller raced a destroy against a verb that reaches the object.
     */
    public List<FreedMemoryUse> freedMemoryUses() {
        return List.copyOf(freedMemoryUses);
    }

    /** Records a use of freed memory and fails the verb with it (the real process would be gone). */
    Error freedMemoryUse(FreedMemoryUse use) {
        freedMemoryUses.add(use);
        return new SimulatedCrash(use);
    }

    /** The simulation's SIGSEGV: an {@code Error}, so that no {@code catch (RuntimeException)} hides it. */
    static final class SimulatedCrash extends Error {

        private static final long serialVersionUID = 1L;

        SimulatedCrash(FreedMemoryUse use) {
            super(use.toString());
        }
    }
}
