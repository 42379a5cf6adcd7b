package io.rdmaverbs.verbs.connection;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CmEvent;
import io.rdmaverbs.verbs.CmEventChannel;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.attr.CmPortSpace;

import org.jspecify.annotations.Nullable;

/**
 * One {@link Connections#connectAsync} in progress, as rping's client does it: resolve the address, then
 * the route, then create the connection's resources (receives posted) and connect, each step on the
 * event that ends the one before, on the connection's {@link Lane}. Each step is bounded by a watchdog
 * (ETIMEDOUT when its event does not come); any failure releases all it made.
 */
final class ActiveConnect implements EventLoop.Sink {

    /** A step: the verb that started it and the event that ends it. */
    private record Step(String verb, CmEventType awaited, Duration bound) {
    }

    private final Connections owner;
    private final ConnectSpec spec;
    private final String name;
    private final Lane lane;
    private final ScheduledExecutorService timers;
    private final CompletableFuture<Connection> result = new CompletableFuture<>();
    private final CmId id;
    private volatile @Nullable Connection connection;
    private volatile @Nullable Step step;
    private @Nullable ScheduledFuture<?> watchdog;

    ActiveConnect(Connections owner, CmEventChannel channel, ConnectSpec spec, String name, Lane lane,
            ScheduledExecutorService timers) {
        this.owner = owner;
        this.spec = spec;
        this.name = name;
        this.lane = lane;
        this.timers = timers;
        this.id = channel.createId(CmPortSpace.TCP, name);
    }

    CompletableFuture<Connection> start() {
        owner.track(id, this);
        result.whenComplete((c, e) -> owner.connectEnded(this));
        lane.execute(() -> run(() -> {
            await(new Step("rdma_resolve_addr", CmEventType.ADDR_RESOLVED, spec.timeout().multipliedBy(2)));
            id.resolveAddress(spec.source(), spec.destination(), spec.timeout());
        }));
        return result;
    }

    /** On the loop thread: the connection's state moves now; the next step runs on the lane. */
    @Override
    public void eventArrived(CmEvent event) {
        Connection c = connection;
        if (c != null) {
            c.eventArrived(event);
        }
        CmEventType type = event.type();
        int status = event.status();
        byte[] data = event.privateData();
        lane.execute(() -> run(() -> next(type, status, data)));
    }

    private void next(CmEventType type, int status, byte[] data) {
        if (result.isDone()) {
            return;
        }
        switch (type) {
            case ADDR_RESOLVED -> {
                await(new Step("rdma_resolve_route", CmEventType.ROUTE_RESOLVED, spec.timeout().multipliedBy(2)));
                id.resolveRoute(spec.timeout());
            }
            case ROUTE_RESOLVED -> {
                SessionSpec session = spec.session();
                connection = Connection.open(owner, name, id, spec.connection(), lane, new byte[0], session, null);
                await(new Step("rdma_connect", CmEventType.ESTABLISHED, spec.timeout().multipliedBy(2)));
                byte[] privateData = session == null ? spec.privateData()
                        : Hello.of(spec.connection(), connection.session().nonce()).prefix(spec.privateData());
                id.connect(spec.connection().parameters().withPrivateData(privateData));
            }
            case ESTABLISHED -> {
                cancelWatchdog();
                Connection c = java.util.Objects.requireNonNull(connection);
                ProtocolException refused = c.helloRefused();
                if (refused != null) {
                    fail(new VerbsException("rdma_connect", id.toString(), Errno.EPROTO, refused.getMessage()
                            + " (connecting to " + spec.destination() + ")"));
                    return;
                }
                owner.adopt(c);
                result.complete(c);
            }
            case REJECTED -> fail(new ConnectionRejectedException(id.toString(), status, data));
            case ADDR_ERROR -> fail(failed("rdma_resolve_addr", type, status));
            case ROUTE_ERROR -> fail(failed("rdma_resolve_route", type, status));
            case UNREACHABLE, CONNECT_ERROR, DEVICE_REMOVAL -> fail(failed("rdma_connect", type, status));
            default -> {
                // Nothing to do for this step (TIMEWAIT_EXIT, ADDR_CHANGE...).
            }
        }
    }

    private VerbsException failed(String verb, CmEventType type, int status) {
        Errno errno = status < 0 ? Errno.of(status) : null;
        return new VerbsException(verb, id.toString(), errno, type.cName() + " (status " + status + ") while connecting to "
                + spec.destination());
    }

    private void await(Step next) {
        cancelWatchdog();
        step = next;
        watchdog = timers.schedule(() -> lane.execute(() -> {
            if (step == next && !result.isDone()) {
                fail(new VerbsException(next.verb(), id.toString(), Errno.ETIMEDOUT, "no " + next.awaited().cName()
                        + " within " + next.bound() + " while connecting to " + spec.destination()));
            }
        }), next.bound().toMillis(), TimeUnit.MILLISECONDS);
    }

    private void cancelWatchdog() {
        ScheduledFuture<?> w = watchdog;
        if (w != null) {
            w.cancel(false);
        }
    }

    private void run(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    /** The manager is closing: the connect fails on its lane, after the step running now. */
    void abort() {
        lane.execute(() -> fail(new IllegalStateException("the connection manager on " + id.channel()
                + " closed while " + id + " was connecting to " + spec.destination())));
    }

    CompletableFuture<Connection> result() {
        return result;
    }

    /** Fails the connect, releasing the connection's resources and the id: nothing of it is left. */
    void fail(RuntimeException failure) {
        if (result.isDone()) {
            return;
        }
        cancelWatchdog();
        owner.untrack(id);
        Connection c = connection;
        try {
            if (c != null) {
                owner.verbs().close(c.resources(), ClosePolicy.CASCADE);
            }
            id.close(ClosePolicy.CASCADE);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
        result.completeExceptionally(failure);
    }
}
