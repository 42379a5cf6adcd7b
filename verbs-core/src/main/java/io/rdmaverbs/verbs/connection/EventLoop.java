package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CmEvent;
import io.rdmaverbs.verbs.CmEventChannel;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.attr.CmEventType;

import org.jspecify.annotations.Nullable;

/**
 * The thread that reads one {@link CmEventChannel}: it waits for each event, hands it to the owner of its
 * id (the listener, for a CONNECT_REQUEST) on this thread, so that state moves in event order, and
 * acknowledges it at once: the owner takes what it needs and runs anything slow on its own {@link Lane}.
 * It stops when {@link #stop} wakes it, or when the channel closes under it.
 */
final class EventLoop {

    /** Whoever owns a CM id: takes what it needs of an event of it, quickly, on the loop thread. */
    interface Sink {
        void eventArrived(CmEvent event);
    }

    private static final System.Logger LOG = System.getLogger(EventLoop.class.getName());

    private final Map<CmId, Sink> sinks = new ConcurrentHashMap<>();
    private final ChannelThread<CmEvent> thread;

    EventLoop(CmEventChannel channel) {
        this.thread = new ChannelThread<>("rdma-cm-events-" + channel.name(), channel.toString(), channel::awaitEvent,
                this::dispatch, channel::wakeWaiters);
    }

    void start() {
        thread.start();
    }

    void register(CmId id, Sink sink) {
        sinks.put(id, sink);
    }

    void unregister(CmId id) {
        sinks.remove(id);
    }

    boolean isLoopThread() {
        return thread.isThisThread();
    }

    /** Stops the loop and waits up to {@code bound} for it to leave. */
    void stop(Duration bound) {
        thread.stop(bound);
    }

    private void dispatch(CmEvent event) {
        CmId owner = event.type() == CmEventType.CONNECT_REQUEST ? event.listenId() : event.cmId();
        @Nullable Sink sink = owner == null ? null : sinks.get(owner);
        try {
            if (sink != null) {
                sink.eventArrived(event);
            } else if (event.type() == CmEventType.CONNECT_REQUEST) {
                refuse(event.cmId());
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> "the owner of " + owner + " failed on " + event.type().cName(), e);
        } finally {
            try {
                event.close(ClosePolicy.CASCADE);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, () -> "acknowledging " + event + " failed", e);
            }
        }
    }

    /** A request for a listener that is already gone: nobody will answer it, so it is rejected now. */
    private static void refuse(CmId request) {
        try {
            request.reject(new byte[0]);
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "rejecting the orphan request " + request + " failed", e);
        }
    }
}
