package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
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
import io.rdmaverbs.verbs.error.VerbsException;

import org.jspecify.annotations.Nullable;

/**
 * One RC connection made by the connection manager: it owns its {@link CmId}, and the PD, CQ (with its
 * completion channel, if asked for), QP and memory region it created on the id's device context, all
 * ordinary resources of the graph ({@link #resources()}). Its receive buffers were posted before the
 * handshake. Its {@link #state()} follows the id's CM events.
 *
 * <p>{@link #close(Duration)} is graceful: it disconnects (the peer sees DISCONNECTED), waits at most the
 * given time for its own DISCONNECTED, then releases everything in dependency order (the QP's work requests
 * flush first) and reports what it released; {@link #close()} waits the event channel's
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
    private volatile ConnectionState state = ConnectionState.CONNECTING;
    private volatile byte[] peerPrivateData;
    /** Whether this side called {@code rdma_disconnect}: a close then only waits for its DISCONNECTED. */
    private volatile boolean disconnectSent;

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
    }

    /**
     * Creates what a connection of {@code spec} needs on the id's context (librdmacm's own, which
     * {@code rdma_create_qp(3)} requires) and posts every receive buffer; on a failure releases what it made.
     */
    static Connection open(Connections owner, String name, CmId id, ConnectionSpec spec, Lane lane,
            byte[] peerPrivateData) {
        DeviceContext ctx = id.context();
        if (ctx == null) {
            throw new IllegalStateException(id + " has no device context: it is neither bound nor resolved");
        }
        List<VerbsResource> made = new ArrayList<>();
        try {
            ProtectionDomain pd = keep(made, ctx.allocateProtectionDomain(name + "/pd"));
            CompletionChannel channel = spec.completionChannel()
                    ? keep(made, ctx.createCompletionChannel(name + "/channel")) : null;
            CompletionQueueSpec cqSpec = CompletionQueueSpec.of(spec.completionQueueEntries());
            CompletionQueue cq = keep(made, ctx.createCompletionQueue(channel == null ? cqSpec
                    : cqSpec.withChannel(channel), name + "/cq"));
            QueuePair qp = keep(made, id.createQueuePair(pd, QueuePairSpec.rc(cq, cq, spec.capabilities()),
                    name + "/qp"));
            MemoryRegion mr = keep(made, pd.allocateMemory(spec.bufferBytes(),
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE), name + "/mr"));
            Connection c = new Connection(owner, name, id, pd, channel, cq, qp, new ConnectionBuffers(mr, spec), lane,
                    peerPrivateData);
            for (int i = 0; i < spec.receiveBufferCount(); i++) {
                c.postReceive(i);
            }
            return c;
        } catch (RuntimeException e) {
            owner.verbs().close(made, ClosePolicy.CASCADE);
            throw e;
        }
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

    /** The one CQ both queues complete to. */
    public CompletionQueue completionQueue() {
        return cq;
    }

    /** The CQ's completion channel, when the spec asked for one. */
    public @Nullable CompletionChannel completionChannel() {
        return completionChannel;
    }

    public ConnectionBuffers buffers() {
        return buffers;
    }

    public @Nullable InetSocketAddress peerAddress() {
        return id.peerAddress();
    }

    public @Nullable InetSocketAddress localAddress() {
        return id.localAddress();
    }

    /**
     * The private data the peer sent: with its request, on the passive side; with its accept, on the active
     * side (zero-padded to the transport's length).
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /** The graph resources the connection owns and releases, in creation order; those still open. */
    public List<VerbsResource> resources() {
        List<VerbsResource> all = new ArrayList<>(List.of(id, pd));
        if (completionChannel != null) {
            all.add(completionChannel);
        }
        all.addAll(List.of(cq, qp, buffers.region()));
        return all.stream().filter(VerbsResource::isOpen).toList();
    }

    // ---- data path helpers ------------------------------------------------------------------------

    /** Posts receive buffer {@code index} again (work request id = index), once its message was read. */
    public void postReceive(int index) {
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
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (stateChanged) {
            while (state != wanted) {
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

    /** Waits up to {@code timeout} for the connection to be disconnected (or closed). */
    public boolean awaitDisconnected(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (stateChanged) {
            while (!isDown(state)) {
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

    /** {@code rdma_disconnect(3)}: both sides get DISCONNECTED; the QP's work requests flush. */
    public void disconnect() {
        disconnectSent = true;
        id.disconnect();
    }

    /** The id's CM event, on the loop thread: moves the state; the listeners hear of it on the lane. */
    void eventArrived(CmEvent event) {
        ConnectionState next = switch (event.type()) {
            case ESTABLISHED -> {
                byte[] data = event.privateData();
                if (data.length > 0) {
                    peerPrivateData = data;
                }
                yield ConnectionState.CONNECTED;
            }
            case DISCONNECTED -> ConnectionState.DISCONNECTED;
            case CONNECT_ERROR, UNREACHABLE, REJECTED, DEVICE_REMOVAL -> ConnectionState.FAILED;
            default -> null;
        };
        if (next == null || state == ConnectionState.CLOSED) {
            return;
        }
        moveTo(next);
        if (next == ConnectionState.DISCONNECTED) {
            // The peer disconnected first: answer (its DREP), so that this QP moves to ERR and flushes too.
            lane.execute(this::answerDisconnect);
        }
    }

    private void answerDisconnect() {
        if (id.isOpen() && id.role() == CmIdRole.DISCONNECTED) {
            try {
                id.disconnect();
            } catch (VerbsException e) {
                // This side disconnected first: nothing to answer.
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
        CloseReport report = close(id.channel().disconnectTimeout());
        if (!report.isComplete()) {
            throw report.left().getFirst().failure();
        }
    }

    /**
     * Disconnects when connected ({@code rdma_disconnect(3)}, unless {@link #disconnect()} was called
     * already), waits at most {@code disconnectWait} for DISCONNECTED (not at all on the event loop, whose
     * thread delivers it), then releases the connection's resources in dependency order: an unacknowledged
     * event of the id first, the QP before the id (rdma_destroy_id(3) would leak it), the MR before its PD,
     * the CQ and its completion channel once no QP uses them.
     *
     * <p>It does not throw when a release is refused: the report names what is left and why, and a later
     * close tries those again (what was released is not released twice). The connection is {@link
     * ConnectionState#CLOSED} once nothing is left; a close after that returns an empty report.
     *
     * @param disconnectWait how long to wait for DISCONNECTED; zero releases right after the
     *        {@code rdma_disconnect} (the other side still gets its DREQ, this side does not wait for the DREP)
     * @return what this call released, in order, and what it left
     */
    public CloseReport close(Duration disconnectWait) {
        Objects.requireNonNull(disconnectWait, "disconnectWait");
        synchronized (this) {
            if (state == ConnectionState.CLOSED) {
                return new CloseReport(ClosePolicy.CASCADE, List.of(), List.of());
            }
            if (id.isOpen() && id.role() == CmIdRole.CONNECTED) {
                if (!disconnectSent) {
                    try {
                        disconnect();
                    } catch (VerbsException e) {
                        LOG.log(Level.DEBUG, () -> "rdma_disconnect of " + name + " before its close failed", e);
                    }
                }
                if (!owner.isLoopThread() && disconnectWait.isPositive()) {
                    awaitDisconnected(disconnectWait);
                }
            }
            CloseReport report = owner.verbs().close(resources(), ClosePolicy.CASCADE);
            owner.forget(this);
            if (report.isComplete()) {
                moveTo(ConnectionState.CLOSED);
            }
            return report;
        }
    }

    @Override
    public String toString() {
        return "connection '" + name + "' (" + state + ", " + id + ")";
    }
}
