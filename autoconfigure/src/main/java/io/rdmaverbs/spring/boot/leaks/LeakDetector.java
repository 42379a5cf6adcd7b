package io.rdmaverbs.spring.boot.leaks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.VerbsResource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Reports, as HikariCP's {@code leakDetectionThreshold} does for a borrowed connection, every lease held
 * and every completion event left unacknowledged for longer than a threshold: once each, as a WARN whose
 * stack trace is the stack that took it. A scan runs every quarter of the threshold (at least every
 * 100 ms, at most every 10 s) on a daemon thread; the health indicator asks for the same list.
 *
 * <p>Turns on {@link CompletionQueue#traceEventOrigins(boolean)} for every CQ, so that an event's stack is
 * known: a stack walk per run of unacknowledged events, which is why detection is off by default.
 */
public final class LeakDetector implements VerbsListener, SmartLifecycle {

    private static final Log logger = LogFactory.getLog(LeakDetector.class);
    private static final Duration MIN_PERIOD = Duration.ofMillis(100);
    private static final Duration MAX_PERIOD = Duration.ofSeconds(10);

    private final Duration threshold;
    private final Supplier<? extends Collection<? extends VerbsResource>> resources;
    /** The leases and event runs already logged: each is logged once, and forgotten with it. */
    private final Set<Object> reported = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
    private @Nullable ScheduledExecutorService scans;

    /**
     * @param threshold how long a hold may last before it is reported
     * @param resources the live resources to scan, read at each scan (so the graph is not needed early)
     */
    public LeakDetector(Duration threshold, Supplier<? extends Collection<? extends VerbsResource>> resources) {
        if (threshold.isNegative() || threshold.isZero()) {
            throw new IllegalArgumentException("the leak-detection threshold must be positive, was " + threshold);
        }
        this.threshold = threshold;
        this.resources = resources;
    }

    public Duration threshold() {
        return threshold;
    }

    @Override
    public void created(VerbsResource resource) {
        if (resource instanceof CompletionQueue cq) {
            cq.traceEventOrigins(true);
        }
    }

    /** The holds on {@code of} older than the threshold; logs those not logged before. */
    public List<SuspectedLeak> suspectedLeaks(Collection<? extends VerbsResource> of) {
        Instant now = Instant.now();
        List<SuspectedLeak> leaks = new ArrayList<>();
        for (VerbsResource r : of) {
            for (Lease lease : r.leases()) {
                Duration held = Duration.between(lease.since(), now);
                if (lease.isHeld() && held.compareTo(threshold) >= 0) {
                    leaks.add(report(lease, new SuspectedLeak(r.ref(), StuckReference.Cause.LEASE, lease.since(), held,
                            lease.thread(), lease.holder(), lease.stack())));
                }
            }
            if (r instanceof CompletionQueue cq) {
                cq.oldestUnacknowledgedEvent().ifPresent(event -> {
                    Duration held = Duration.between(event.at(), now);
                    if (held.compareTo(threshold) >= 0) {
                        leaks.add(report(event, new SuspectedLeak(r.ref(), StuckReference.Cause.UNACKNOWLEDGED_CQ_EVENTS,
                                event.at(), held, event.thread(), null, event.stack())));
                    }
                });
            }
        }
        return leaks;
    }

    /** Scans every live resource now. */
    public List<SuspectedLeak> scan() {
        return suspectedLeaks(resources.get());
    }

    private SuspectedLeak report(Object hold, SuspectedLeak leak) {
        if (reported.add(hold)) {
            Exception origin = new Exception(leak.stack().isEmpty()
                    ? "taken before leak detection was on: no stack recorded"
                    : "apparent leak: taken here, on thread " + leak.thread());
            origin.setStackTrace(leak.stack().toArray(StackTraceElement[]::new));
            logger.warn("RDMA verbs: leak detection triggered: " + leak.message(), origin);
        }
        return leak;
    }

    @Override
    public synchronized void start() {
        resources.get().forEach(this::created);
        long period = Math.clamp(threshold.dividedBy(4).toMillis(), MIN_PERIOD.toMillis(), MAX_PERIOD.toMillis());
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("rdma-verbs-leak-detection").factory());
        s.scheduleWithFixedDelay(this::scanQuietly, period, period, TimeUnit.MILLISECONDS);
        scans = s;
    }

    private void scanQuietly() {
        try {
            scan();
        } catch (RuntimeException e) {
            // A resource closed during the scan, for instance: the next scan sees the graph as it is then.
            logger.debug("RDMA verbs: leak-detection scan failed", e);
        }
    }

    @Override
    public synchronized void stop() {
        if (scans != null) {
            scans.shutdownNow();
            scans = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return scans != null;
    }
}
