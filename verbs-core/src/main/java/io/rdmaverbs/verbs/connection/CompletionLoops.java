package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.attr.WorkCompletions;

import org.jspecify.annotations.Nullable;

/**
 * The completion threads of one {@link Connections}, as Netty's event loops serve channels: a few threads
 * serve every session's CQ. Each loop is one platform thread waiting on one {@link CompletionChannel} of
 * one device context; a session's CQ is made on the channel of the loop with the fewest CQs, at most
 * {@code threads} loops per device context. A loop takes the CQ's event, acknowledges it at once (so a
 * destroy never waits for it), re-arms the CQ and polls it empty, handing each completion to its session.
 */
final class CompletionLoops {

    private static final System.Logger LOG = System.getLogger(CompletionLoops.class.getName());
    private static final int POLL_BATCH = 32;

    private final String name;
    private final int threads;
    private final Map<DeviceContext, List<Loop>> loops = new HashMap<>();
    private boolean closed;

    CompletionLoops(String name, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("completion threads must be at least 1, was " + threads);
        }
        this.name = name;
        this.threads = threads;
    }

    /** The loop a new session's CQ on {@code context} goes to: the least loaded, a new one while fewer than allowed. */
    synchronized Loop assign(DeviceContext context) {
        if (closed) {
            throw new IllegalStateException("the completion loops of " + name + " are closed");
        }
        List<Loop> of = loops.computeIfAbsent(context, c -> new ArrayList<>());
        Loop least = of.stream().min(Comparator.comparingInt(Loop::load)).orElse(null);
        if (least == null || (least.load() > 0 && of.size() < threads)) {
            Loop loop = new Loop(context.createCompletionChannel(name + "/completions-" + context.device().name() + "-"
                    + of.size()));
            of.add(loop);
            loop.start();
            return loop;
        }
        return least;
    }

    /** The loops and their channels, for reports. */
    synchronized List<Loop> all() {
        return loops.values().stream().flatMap(List::stream).toList();
    }

    /**
     * Stops every loop (waiting up to {@code bound} for each to leave) and closes their channels: called once
     * every session's CQ is gone, since a channel cannot go before its CQs.
     *
     * @param released where the channels closed are added, in order
     * @return the failures of the channels' closes
     */
    List<RuntimeException> close(Duration bound, List<ResourceRef> released) {
        List<Loop> all;
        synchronized (this) {
            closed = true;
            all = all();
        }
        List<RuntimeException> failures = new ArrayList<>();
        for (Loop l : all) {
            l.stop(bound);
        }
        for (Loop l : all) {
            try {
                ResourceRef ref = l.channel.ref();
                l.channel.close(ClosePolicy.CASCADE);
                released.add(ref);
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        return failures;
    }

    /** One thread, its channel, and the CQs it drains. */
    static final class Loop {

        private final CompletionChannel channel;
        private final Map<CompletionQueue, Drain> drains = new ConcurrentHashMap<>();
        private final ChannelThread<CompletionQueue> thread;

        Loop(CompletionChannel channel) {
            this.channel = channel;
            this.thread = new ChannelThread<>("rdma-completions-" + channel.name(), channel.toString(),
                    channel::awaitEvent, this::drain, channel::wakeWaiters);
        }

        CompletionChannel channel() {
            return channel;
        }

        int load() {
            return drains.size();
        }

        void start() {
            thread.start();
        }

        /** The session's CQ (made on this loop's channel) is served from now on; armed before any traffic. */
        void attach(CompletionQueue cq, Session session) {
            drains.put(cq, new Drain(cq, session));
            cq.requestNotification(false);
        }

        /**
         * The CQ is no longer served: its completions buffer goes (the close waits for a poll in flight), and
         * whatever its channel still delivers for it is acknowledged and dropped.
         */
        void detach(CompletionQueue cq) {
            Drain d = drains.remove(cq);
            if (d != null) {
                d.close();
            }
        }

        void stop(Duration bound) {
            thread.stop(bound);
        }

        /** Whether the caller is this loop's thread (what it waits for, it would deliver itself). */
        boolean isLoopThread() {
            return thread.isThisThread();
        }

        /** The CQ's event: acknowledged at once, the CQ re-armed and polled empty. */
        private void drain(CompletionQueue cq) {
            Drain d = drains.get(cq);
            try {
                cq.acknowledgeEvents(1);
                if (d != null) {
                    cq.requestNotification(false);
                    d.poll();
                }
            } catch (RuntimeException e) {
                if (d != null && drains.get(cq) == d && cq.isOpen()) {
                    LOG.log(Level.WARNING, () -> "draining " + cq + " failed", e);
                }
            }
        }

        @Override
        public String toString() {
            return "completion loop on " + channel + " (" + drains.size() + " CQs)";
        }
    }

    /** One CQ and its session, with the completions buffer this loop's thread polls it into. */
    private static final class Drain {

        private final CompletionQueue cq;
        private final Session session;
        private @Nullable WorkCompletions wcs;
        private volatile boolean closed;

        Drain(CompletionQueue cq, Session session) {
            this.cq = cq;
            this.session = session;
        }

        /** Polls until the CQ is empty; on the loop thread only. */
        void poll() {
            WorkCompletions buffer = wcs;
            if (buffer == null) {
                synchronized (this) {
                    if (closed) {
                        return;
                    }
                    buffer = cq.newWorkCompletions(POLL_BATCH);
                    wcs = buffer;
                }
            }
            int n;
            do {
                n = cq.poll(buffer);
                for (int i = 0; i < n; i++) {
                    try {
                        session.completed(buffer, i);
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, () -> session.name() + " failed on a completion", e);
                    }
                }
            } while (n == POLL_BATCH);
        }

        synchronized void close() {
            closed = true;
            WorkCompletions buffer = wcs;
            if (buffer != null) {
                buffer.close();
            }
        }
    }
}
