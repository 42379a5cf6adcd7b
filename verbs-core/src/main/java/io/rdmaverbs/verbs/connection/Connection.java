package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.CmEvent;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.CmIdRole;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.attr.DeviceAttributes;
import io.rdmaverbs.verbs.error.VerbsException;

import org.jspecify.annotations.Nullable;

/**
 * One RC connection made by the connection manager: it owns its {@link CmId}, and the PD, CQ, QP and
 * memory regions it created on the id's device context, all ordinary resources of the graph
 * ({@link #resources()}). Its {@link #state()} follows the id's CM events.
 *
 * <p>A <b>messaging</b> connection (a {@link SessionSpec} in its connect or listen spec, the default) has a
 * {@link #session()}: the data plane of messages, requests and large transfers, whose CQ one of the
 * manager's completion loops serves. A <b>raw</b> connection ({@code .raw()}) leaves the QP to the
 * application: its receive buffers are posted before the handshake (work request id = buffer index), and
 * the application posts and polls.
 *
 * <p>{@link #close(Duration)} is graceful, in the phases of {@link Connections#close(Duration)} for this one
 * connection: it disconnects (the peer sees DISCONNECTED), waits at most the given time for its own
 * DISCONNECTED, lets the QP's error state flush its work requests, then releases everything in dependency
 * order, and reports each phase; {@link #close()} waits the event channel's
 * {@linkplain io.rdmaverbs.verbs.CmEventChannel#disconnectTimeout() disconnect timeout} and throws what a
 * release refused.
 */
public final class Connection implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Connection.class.getName());

    private final Connections owner;
    private final String name;
    private final CmId id;
    private final ProtectionDomain pd;
    private final @Nullable CompletionChannel completionChannel;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final ConnectionBuffers buffers;
    private final Lane lane;
    private final List<ConnectionStateListener> listeners = new CopyOnWriteArrayList<>();
    private final Object stateChanged = new Object();
    /** The regions of this connection's PD by address: a payload inside one is sent without a copy. */
    private final ConcurrentSkipListMap<Long, MemoryRegion> regions = new ConcurrentSkipListMap<>();
    private final List<MemoryRegion> registered = new CopyOnWriteArrayList<>();
    private final AtomicInteger regionNumbers = new AtomicInteger();
    /** The region {@link #regionOf} found last (a hint, checked on every use). */
    private volatile @Nullable MemoryRegion lastRegion;
    private volatile ConnectionState state = ConnectionState.CONNECTING;
    private volatile byte[] peerPrivateData;
    private volatile @Nullable Session session;
    private volatile CompletionLoops.@Nullable Loop loop;
    /** The peer's hello: from its request (passive side), or its accept (active side, at ESTABLISHED). */
    private volatile @Nullable Hello peerHello;
    private volatile @Nullable ProtocolException helloRefused;
    private volatile long disconnectSentAt;
    private volatile long disconnectedAt;
    /** Once a close ran its release: a later close only retries what was left. */
    private volatile boolean released;
    /** Why this side's {@code rdma_disconnect} failed in a close, for its report. */
    private volatile @Nullable String disconnectFailure;

    private Connection(Connections owner, String name, CmId id, ProtectionDomain pd,
            @Nullable CompletionChannel completionChannel, CompletionQueue cq, QueuePair qp, ConnectionBuffers buffers,
            Lane lane, byte[] peerPrivateData) {
        this.owner = owner;
        this.name = name;
        this.id = id;
        this.pd = pd;
        this.completionChannel = completionChannel;
        this.cq = cq;
        this.qp = qp;
        this.buffers = buffers;
        this.lane = lane;
        this.peerPrivateData = peerPrivateData;
        regions.put(buffers.region().address(), buffers.region());
    }

    /**
     * Creates what a connection of {@code spec} needs on the id's context (librdmacm's own, which
     * {@code rdma_create_qp(3)} requires) and posts every receive buffer; with {@code sessionSpec}, its CQ is
     * made on a completion loop's channel and its session prepared. On a failure releases what it made.
     *
     * @param peerHello the peer's hello, when it came with the request (the passive side)
     */
    static Connection open(Connections owner, String name, CmId id, ConnectionSpec spec, Lane lane,
            byte[] peerPrivateData, @Nullable SessionSpec sessionSpec, @Nullable Hello peerHello) {
        DeviceContext ctx = id.context();
        if (ctx == null) {
            throw new IllegalStateException(id + " has no device context: it is neither bound nor resolved");
        }
        int initiatorDepth = checkHandshake(name, ctx, spec.parameters());
        List<VerbsResource> made = new ArrayList<>();
        try {
            ProtectionDomain pd = keep(made, ctx.allocateProtectionDomain(name + "/pd"));
            CompletionLoops.Loop loop = sessionSpec == null ? null : owner.completionLoops().assign(ctx);
            CompletionChannel channel = loop != null ? loop.channel() : spec.completionChannel()
                    ? keep(made, ctx.createCompletionChannel(name + "/channel")) : null;
            CompletionQueueSpec cqSpec = CompletionQueueSpec.of(spec.completionQueueEntries());
            CompletionQueue cq = keep(made, ctx.createCompletionQueue(channel == null ? cqSpec
                    : cqSpec.withChannel(channel), name + "/cq"));
            QueuePair qp = keep(made, id.createQueuePair(pd, QueuePairSpec.rc(cq, cq, spec.capabilities()),
                    name + "/qp"));
            MemoryRegion mr = keep(made, pd.allocateMemory(spec.bufferBytes(),
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE), name + "/mr"));
            Connection c = new Connection(owner, name, id, pd, loop != null ? null : channel, cq, qp,
                    new ConnectionBuffers(mr, spec), lane, peerPrivateData);
            c.peerHello = peerHello;
            if (sessionSpec != null && loop != null) {
                Session s = new Session(c, sessionSpec, lane, owner.workers(), owner.timers(), initiatorDepth);
                c.session = s;
                s.prepare(peerHello);
                c.loop = loop;
                loop.attach(cq, s);
            } else {
                for (int i = 0; i < spec.receiveBufferCount(); i++) {
                    c.postReceive(i);
                }
            }
            return c;
        } catch (RuntimeException e) {
            owner.verbs().close(made, ClosePolicy.CASCADE);
            throw e;
        }
    }

    /**
     * Refuses handshake parameters the device cannot honour, before anything is made: librdmacm would fail
     * {@code rdma_connect(3)} or {@code rdma_accept(3)} with a bare EINVAL. 255 means "the device's maximum"
     * to librdmacm, and passes.
     *
     * @return the initiator depth the connection gets: at most this many READs and atomics in flight
     */
    private static int checkHandshake(String name, DeviceContext ctx, CmConnectionParams p) {
        DeviceAttributes limits = ctx.attributes();
        String device = ctx.device().name();
        if (p.responderResources() != 255 && p.responderResources() > limits.maxQpRdAtom()) {
            throw new IllegalArgumentException(name + ": responderResources " + p.responderResources() + " (incoming "
                    + "RDMA READs and atomics at once) is more than " + device + " allows: its max_qp_rd_atom is "
                    + limits.maxQpRdAtom() + " (ConnectionSpec.withHandshake; rdma_accept(3) would fail with EINVAL)");
        }
        if (p.initiatorDepth() != 255 && p.initiatorDepth() > limits.maxQpInitRdAtom()) {
            throw new IllegalArgumentException(name + ": initiatorDepth " + p.initiatorDepth() + " (outgoing RDMA "
                    + "READs and atomics at once) is more than " + device + " allows: its max_qp_init_rd_atom is "
                    + limits.maxQpInitRdAtom() + " (ConnectionSpec.withHandshake; rdma_connect(3) would fail with "
                    + "EINVAL)");
        }
        return Math.min(p.initiatorDepth(), limits.maxQpInitRdAtom());
    }

    private static <R extends VerbsResource> R keep(List<VerbsResource> made, R r) {
        made.add(r);
        return r;
    }

    public String name() {
        return name;
    }

    public ConnectionState state() {
        return state;
    }

    public CmId cmId() {
        return id;
    }

    public QueuePair queuePair() {
        return qp;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** The one CQ both queues complete to. */
    public CompletionQueue completionQueue() {
        return cq;
    }

    /** The CQ's completion channel, when a raw connection's spec asked for one of its own. */
    public @Nullable CompletionChannel completionChannel() {
        return completionChannel;
    }

    public ConnectionBuffers buffers() {
        return buffers;
    }

    /** Whether the connection has a {@link #session()} (else it is raw: the application posts and polls). */
    public boolean isMessaging() {
        return session != null;
    }

    /**
     * The connection's data plane.
     *
     * @throws IllegalStateException for a raw connection
     */
    public Session session() {
        Session s = session;
        if (s == null) {
            throw new IllegalStateException(this + " is raw (made without a SessionSpec): it has no session; post and "
                    + "poll its queue pair instead");
        }
        return s;
    }

    public @Nullable InetSocketAddress peerAddress() {
        return id.peerAddress();
    }

    public @Nullable InetSocketAddress localAddress() {
        return id.localAddress();
    }

    /**
     * The private data the peer's application sent: with its request, on the passive side; with its accept,
     * on the active side (zero-padded to the transport's length). The session protocol's hello is not part
     * of it.
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /** How many regions the connection keeps track of, closed ones included (none is kept for long). */
    int trackedRegions() {
        return registered.size();
    }

    /** The graph resources the connection owns and releases, in creation order; those still open. */
    public List<VerbsResource> resources() {
        List<VerbsResource> all = new ArrayList<>(List.of(id, pd));
        if (completionChannel != null) {
            all.add(completionChannel);
        }
        all.addAll(List.of(cq, qp, buffers.region()));
        all.addAll(registered);
        return all.stream().filter(VerbsResource::isOpen).toList();
    }

    // ---- memory -------------------------------------------------------------------------------------

    /**
     * Registers {@code buffer} in the connection's PD ({@code ibv_reg_mr(3)}): a message whose payload lies
     * in it is sent without a copy, and with {@link AccessFlag#REMOTE_READ} a large one is read by the peer
     * straight from it. Released with the connection, or by closing it.
     */
    public MemoryRegion registerMemory(MemorySegment buffer, Set<AccessFlag> access) {
        return track(pd.registerMemory(buffer, access, name + "/mr-" + regionNumbers.incrementAndGet()));
    }

    /** {@link #registerMemory}, of native memory allocated for it (zeroed, page-aligned). */
    public MemoryRegion allocateMemory(long size, Set<AccessFlag> access) {
        return track(pd.allocateMemory(size, access, name + "/mr-" + regionNumbers.incrementAndGet()));
    }

    /**
     * Keeps {@code mr} to release with the connection and to find by address; the regions closed since the
     * last registration go, so that a connection registering a region per operation for its whole life does
     * not keep every one it ever had.
     */
    private MemoryRegion track(MemoryRegion mr) {
        registered.removeIf(MemoryRegion::isClosed);
        regions.values().removeIf(MemoryRegion::isClosed);
        registered.add(mr);
        regions.put(mr.address(), mr);
        return mr;
    }

    /**
     * Deregisters a region the session registered for one transfer or operation, once done with it, off any
     * caller's error path: a failure is logged, and the region stays in the graph (on this connection's PD,
     * released with it).
     */
    void deregisterQuietly(@Nullable MemoryRegion region) {
        if (region == null || !region.isOpen()) {
            return;
        }
        try {
            region.close(ClosePolicy.CASCADE);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> name + ": deregistering " + region + " failed", e);
        }
    }

    /**
     * The open region of this connection's PD that {@code segment} lies in, or null (it is copied then). The
     * region found last is tried first: a data path sends from the same region again and again, and the
     * map's lookup allocates (a boxed address, an entry) on every send.
     */
    @Nullable MemoryRegion regionOf(MemorySegment segment) {
        if (!segment.isNative() || segment.byteSize() == 0) {
            return null;
        }
        MemoryRegion last = lastRegion;
        if (last != null && holds(last, segment) && last.isOpen()) {
            return last;
        }
        Map.Entry<Long, MemoryRegion> e = regions.floorEntry(segment.address());
        if (e == null) {
            return null;
        }
        MemoryRegion mr = e.getValue();
        if (!mr.isOpen()) {
            regions.remove(e.getKey(), mr);
            return null;
        }
        if (!holds(mr, segment)) {
            return null;
        }
        lastRegion = mr;
        return mr;
    }

    private static boolean holds(MemoryRegion mr, MemorySegment segment) {
        return segment.address() >= mr.address() && segment.address() + segment.byteSize() <= mr.address() + mr.length();
    }

    // ---- raw data path helpers --------------------------------------------------------------------

    /** Posts receive buffer {@code index} again (work request id = index), once its message was read: raw only. */
    public void postReceive(int index) {
        if (session != null) {
            throw new IllegalStateException(this + " has a session, which posts its own receives");
        }
        try (ReceiveRequest recv = qp.newReceiveRequest(1)) {
            recv.wrId(index).single(buffers.region(), buffers.receiveOffset(index), buffers.receiveSize());
            qp.postReceive(recv);
        }
    }

    // ---- state ------------------------------------------------------------------------------------

    /** Calls {@code listener} on each later state change, off the event loop, in order. */
    public void onStateChange(ConnectionStateListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Calls {@code action} once the connection is disconnected (by either side). */
    public void onDisconnect(Consumer<Connection> action) {
        Objects.requireNonNull(action, "action");
        onStateChange((c, s) -> {
            if (s == ConnectionState.DISCONNECTED) {
                action.accept(c);
            }
        });
    }

    /** Waits up to {@code timeout} for {@code wanted}; whether it was reached. */
    public boolean awaitState(ConnectionState wanted, Duration timeout) {
        Objects.requireNonNull(wanted, "wanted");
        return awaitUntil(() -> state == wanted, System.nanoTime() + timeout.toNanos());
    }

    /** Waits up to {@code timeout} for the connection to be disconnected (or closed). */
    public boolean awaitDisconnected(Duration timeout) {
        return awaitUntil(() -> isDown(state), System.nanoTime() + timeout.toNanos());
    }

    private boolean awaitUntil(java.util.function.BooleanSupplier reached, long deadline) {
        synchronized (stateChanged) {
            while (!reached.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    stateChanged.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    private static boolean isDown(ConnectionState s) {
        return s == ConnectionState.DISCONNECTED || s == ConnectionState.FAILED || s == ConnectionState.CLOSED;
    }

    /**
     * {@code rdma_disconnect(3)}: both sides get DISCONNECTED; the QP's work requests flush; the session
     * ends (closed by this side).
     */
    public void disconnect() {
        Session s = session;
        if (s != null) {
            s.close();
        }
        disconnectSentAt = System.nanoTime();
        id.disconnect();
    }

    /** Whether the caller is the completion loop thread that serves this connection's CQ. */
    boolean onCompletionThread() {
        CompletionLoops.Loop l = loop;
        return l != null && l.isLoopThread();
    }

    /** Why the peer's hello was refused at ESTABLISHED (the connect then fails with it), or null. */
    @Nullable ProtocolException helloRefused() {
        return helloRefused;
    }

    /** The id's CM event, on the loop thread: moves the state; the listeners hear of it on the lane. */
    void eventArrived(CmEvent event) {
        ConnectionState next = switch (event.type()) {
            case ESTABLISHED -> {
                established(event.privateData());
                yield ConnectionState.CONNECTED;
            }
            case DISCONNECTED -> ConnectionState.DISCONNECTED;
            case CONNECT_ERROR, UNREACHABLE, REJECTED, DEVICE_REMOVAL -> ConnectionState.FAILED;
            default -> null;
        };
        if (next == null || state == ConnectionState.CLOSED) {
            return;
        }
        if (next == ConnectionState.DISCONNECTED) {
            disconnectedAt = System.nanoTime();
        }
        Session s = session;
        if (s != null && next != ConnectionState.CONNECTED) {
            s.connectionDown(next == ConnectionState.DISCONNECTED
                    ? (id.disconnectRequested() ? "disconnected" : "the other side disconnected (RDMA_CM_EVENT_DISCONNECTED)")
                    : event.type().cName(), next == ConnectionState.DISCONNECTED && !id.disconnectRequested());
        }
        moveTo(next);
        if (next == ConnectionState.DISCONNECTED) {
            // The peer disconnected first: answer (its DREP), so that this QP moves to ERR and flushes too.
            lane.execute(this::answerDisconnect);
        }
    }

    /** ESTABLISHED: the active side takes the peer's hello from the accept's private data; the session starts. */
    private void established(byte[] data) {
        Session s = session;
        if (s == null) {
            if (data.length > 0) {
                peerPrivateData = data;
            }
            return;
        }
        Hello hello = peerHello;
        if (hello == null) {
            try {
                hello = Hello.parse(data);
            } catch (ProtocolException e) {
                helloRefused = e;
                return;
            }
            peerHello = hello;
            peerPrivateData = Hello.application(data);
        }
        s.start(hello);
    }

    private void answerDisconnect() {
        // Not after this side's own rdma_disconnect went through: that one answered already, or crossed the DREQ.
        if (id.isOpen() && id.role() == CmIdRole.DISCONNECTED && !id.disconnectSent()) {
            try {
                id.disconnect();
            } catch (VerbsException e) {
                // Nothing to answer any more: the kernel's CM is past it.
            } catch (ResourceClosedException e) {
                // A close released the id meanwhile, and its rdma_destroy_id answered the peer.
            }
        }
    }

    private void moveTo(ConnectionState next) {
        synchronized (stateChanged) {
            if (state == next) {
                return;
            }
            state = next;
            stateChanged.notifyAll();
        }
        for (ConnectionStateListener l : listeners) {
            lane.execute(() -> l.stateChanged(this, next));
        }
    }

    // ---- close ------------------------------------------------------------------------------------

    /**
     * {@link #close(Duration)} with the channel's {@linkplain io.rdmaverbs.verbs.CmEventChannel#disconnectTimeout()
     * disconnect timeout}. Idempotent.
     *
     * @throws VerbsException when a release failed: the report's first failure; what failed stays open
     */
    @Override
    public void close() {
        ConnectionCloseReport report = close(id.channel().disconnectTimeout());
        if (!report.isComplete()) {
            throw report.released().left().getFirst().failure();
        }
    }

    /**
     * Closes the connection in phases, all within {@code disconnectWait}: disconnects when connected
     * ({@code rdma_disconnect(3)}; the session ends, its calls fail with {@link ResourceClosedException}),
     * waits for DISCONNECTED (not on the event loop, whose thread delivers it), lets the completion loop poll
     * what the QP's error state flushed, then releases the connection's resources in dependency order: an
     * unacknowledged event of the id first, the QP before the id (rdma_destroy_id(3) would leak it), the MRs
     * before their PD, the CQ once no QP uses it.
     *
     * <p>It does not throw when a release is refused: the report names what is left and why, and a later
     * close tries those again (what was released is not released twice). The connection is {@link
     * ConnectionState#CLOSED} once nothing is left.
     *
     * @param disconnectWait the bound of the whole close; zero releases right after the {@code rdma_disconnect}
     *        (the other side still gets its DREQ, this side does not wait for the DREP)
     */
    public ConnectionCloseReport close(Duration disconnectWait) {
        Objects.requireNonNull(disconnectWait, "disconnectWait");
        long deadline = System.nanoTime() + disconnectWait.toNanos();
        synchronized (this) {
            ConnectionCloseReport.Disconnect how = disconnectForClose();
            return finishClose(how, deadline);
        }
    }

    /** Whether its manager's shutdown began ({@link PortWait} gives up then). */
    boolean managerClosing() {
        return owner.isClosing();
    }

    /** The close's first phase: ends the session and disconnects, unless that happened already. */
    synchronized ConnectionCloseReport.Disconnect disconnectForClose() {
        Session s = session;
        if (s != null) {
            s.close();
        }
        if (id.disconnectRequested()) {
            return disconnectSentAt != 0 || state != ConnectionState.DISCONNECTED
                    ? ConnectionCloseReport.Disconnect.BY_THIS_SIDE : ConnectionCloseReport.Disconnect.BY_PEER;
        }
        // The id learns of the peer's DISCONNECTED as the event is read, the connection only once its lane
        // handled it: a close in between is still the peer's disconnect, not a connection that never was.
        if (state == ConnectionState.DISCONNECTED || id.isOpen() && id.role() == CmIdRole.DISCONNECTED) {
            return ConnectionCloseReport.Disconnect.BY_PEER;
        }
        // An accepted id whose ESTABLISHED is not read yet may be established in the kernel, its peer connected:
        // rdma_disconnect(3) takes it (the QP goes to ERR, and the DREQ goes out if the RTU came).
        if (!id.isOpen() || id.role() != CmIdRole.CONNECTED && !id.isAcceptedAwaitingEstablished()) {
            return ConnectionCloseReport.Disconnect.NOT_CONNECTED;
        }
        try {
            disconnect();
            return ConnectionCloseReport.Disconnect.BY_THIS_SIDE;
        } catch (VerbsException | ResourceClosedException e) {
            LOG.log(Level.DEBUG, () -> "rdma_disconnect of " + name + " before its close failed", e);
            disconnectFailure = e.getMessage();
            return ConnectionCloseReport.Disconnect.FAILED;
        }
    }

    /** The close's other phases: the wait for DISCONNECTED, the flush and the release. */
    synchronized ConnectionCloseReport finishClose(ConnectionCloseReport.Disconnect how, long deadline) {
        Duration after = awaitDown(how, deadline);
        boolean flushed = awaitFlushed(deadline);
        return release(how, after, flushed);
    }

    /** How long after this side's disconnect its DISCONNECTED came; null when not within the deadline. */
    @Nullable Duration awaitDown(ConnectionCloseReport.Disconnect how, long deadline) {
        if (how == ConnectionCloseReport.Disconnect.NOT_CONNECTED || how == ConnectionCloseReport.Disconnect.BY_PEER) {
            return Duration.ZERO;
        }
        if (!owner.isLoopThread()) {
            // The id learns of ESTABLISHED as the event is read, before this connection's state moves and wakes
            // the wait.
            awaitUntil(() -> isDown(state) || id.isEstablishedAfterDisconnect(), deadline);
            if (id.isEstablishedAfterDisconnect()) {
                // The RTU came after this side's disconnect: the kernel's CM, not established then, had no DREQ to
                // send (it sends one only when established). It is now; once more, so that the peer learns of it
                // within this wait and not at the destroy. Harmless when DISCONNECTED came meanwhile.
                disconnectOnceMore();
                awaitUntil(() -> isDown(state), deadline);
            }
        }
        if (!isDown(state)) {
            return null;
        }
        long sent = disconnectSentAt;
        long at = disconnectedAt;
        return sent == 0 || at == 0 ? Duration.ZERO : Duration.ofNanos(Math.max(0, at - sent));
    }

    private void disconnectOnceMore() {
        try {
            id.disconnect();
        } catch (VerbsException | ResourceClosedException e) {
            LOG.log(Level.DEBUG, () -> "the second rdma_disconnect of " + name + " failed", e);
        }
    }

    /** Waits, up to the deadline, for the completion loop to poll every work request back (flushed, mostly). */
    boolean awaitFlushed(long deadline) {
        Session s = session;
        if (s == null || released) {
            return true;
        }
        // At least one look after the QP went to ERR, even with no time left: the flush is then often done.
        return s.awaitFlushed(Math.max(deadline, System.nanoTime() + 1_000_000));
    }

    /** The release: the CQ leaves its completion loop, then every resource goes in dependency order. */
    synchronized ConnectionCloseReport release(ConnectionCloseReport.Disconnect how, @Nullable Duration after,
            boolean flushed) {
        InetSocketAddress peer = state == ConnectionState.CLOSED ? null : peerIfOpen();
        Session s = session;
        int failed = 0;
        if (!released) {
            CompletionLoops.Loop l = loop;
            if (l != null) {
                l.detach(cq);
            }
            if (s != null) {
                s.release();
            }
            released = true;
        }
        if (s != null) {
            failed = s.failedCompletions().stream().mapToInt(Connection::count).sum();
        }
        CloseReport report = owner.verbs().close(resources(), ClosePolicy.CASCADE);
        owner.forget(this);
        if (report.isComplete()) {
            moveTo(ConnectionState.CLOSED);
        }
        return new ConnectionCloseReport(name, peer, how, how == ConnectionCloseReport.Disconnect.FAILED
                ? disconnectFailure : null, after, failed, flushed, report);
    }

    private @Nullable InetSocketAddress peerIfOpen() {
        try {
            return id.isOpen() ? id.peerAddress() : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static int count(String summary) {
        int x = summary.indexOf(" x ");
        return x < 0 ? 0 : Integer.parseInt(summary.substring(0, x));
    }

    @Override
    public String toString() {
        return "connection '" + name + "' (" + state + ", " + id + ")";
    }
}
