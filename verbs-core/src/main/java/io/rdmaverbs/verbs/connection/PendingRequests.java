package io.rdmaverbs.verbs.connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests of one {@link Session} waiting for their reply, by correlation id (as
 * {@code ReplyingKafkaTemplate} keeps them): a reply completes exactly the request with its id; one that
 * comes after its request timed out, or with an id never sent, finds nothing, is counted and dropped.
 */
final class PendingRequests {

    private final Map<Long, CompletableFuture<Message>> waiting = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final SessionStatistics statistics;
    private final String session;
    private final ScheduledExecutorService timers;

    PendingRequests(String session, SessionStatistics statistics, ScheduledExecutorService timers) {
        this.session = session;
        this.statistics = statistics;
        this.timers = timers;
    }

    /** A new correlation id and the future its reply completes, failed with TimeoutException after {@code timeout}. */
    Pending open(Duration timeout) {
        long id = ids.incrementAndGet();
        CompletableFuture<Message> reply = new CompletableFuture<>();
        waiting.put(id, reply);
        ScheduledFuture<?> timer = timers.schedule(() -> {
            if (reply.completeExceptionally(new TimeoutException(session + ": no reply to request " + id + " within "
                    + timeout))) {
                statistics.timedOut();
            }
        }, timeout.toNanos(), TimeUnit.NANOSECONDS);
        // The timer goes with the reply (the timers' executor removes a cancelled task): a million
        // requests answered in time leave no million tasks behind.
        reply.whenComplete((m, e) -> {
            waiting.remove(id, reply);
            timer.cancel(false);
        });
        return new Pending(id, reply);
    }

    /** A new request's id and its reply. */
    record Pending(long id, CompletableFuture<Message> reply) {
    }

    /** The reply to request {@code id}; false (counted as late) when no request waits for it. */
    boolean complete(long id, Message reply) {
        CompletableFuture<Message> f = waiting.remove(id);
        if (f == null || f.isDone()) {
            statistics.lateReply();
            return false;
        }
        // Counted before the future completes: whoever waits on it sees the count.
        statistics.reply(false);
        return f.complete(reply);
    }

    /** The error reply to request {@code id}. */
    boolean fail(long id, RuntimeException error) {
        CompletableFuture<Message> f = waiting.remove(id);
        if (f == null || f.isDone()) {
            statistics.lateReply();
            return false;
        }
        statistics.reply(true);
        return f.completeExceptionally(error);
    }

    /** The request {@code id} could not be sent: its future fails with {@code why}. */
    void abandon(long id, Throwable why) {
        CompletableFuture<Message> f = waiting.remove(id);
        if (f != null) {
            f.completeExceptionally(why);
        }
    }

    /** The session ended: every request still waiting fails with {@code why}. */
    void failAll(RuntimeException why) {
        List<CompletableFuture<Message>> all = new ArrayList<>(waiting.values());
        waiting.clear();
        for (CompletableFuture<Message> f : all) {
            f.completeExceptionally(why);
        }
    }

    int size() {
        return waiting.size();
    }
}
