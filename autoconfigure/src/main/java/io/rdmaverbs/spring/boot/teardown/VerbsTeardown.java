package io.rdmaverbs.spring.boot.teardown;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.RetryRegistry;
import io.rdmaverbs.spring.boot.descriptor.StuckReferenceDescriptor;
import io.rdmaverbs.spring.boot.observation.LifecycleObserver;
import io.rdmaverbs.spring.boot.observation.LifecycleStep;
import io.rdmaverbs.verbs.ClosePlan;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.VerbsResource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * Releases every resource of the graph when the application context stops, children before parents,
 * in bounded time:
 * <ol>
 * <li>async-event readers stop first (their lifecycle phase is just above this one; the stop wakes
 * them); threads waiting on a completion channel are woken by the channel's close and leave at once,
 * which verbs-core guarantees;</li>
 * <li>a graceful phase retries strict closes of the whole graph while leases are held or references
 * drain, with exponential backoff, bounded by {@code rdma.verbs.teardown.timeout};</li>
 * <li>the policy decides about what is still held: {@code strict} closes what it can and leaves the
 * rest, {@code cascade} closes everything (acknowledging CQ events, detaching multicast groups,
 * revoking leases).</li>
 * </ol>
 * One log block tells what was closed, in order, and what was left and why.
 *
 * <p>Its phase is below the web server's stop ({@link WebServerApplicationContext#START_STOP_LIFECYCLE_PHASE}),
 * so it runs only once the server takes no more requests and, with {@code server.shutdown=graceful}, after
 * the requests in flight were drained; with {@code server.shutdown=immediate} the server's stop ends its
 * request threads (interrupting them) before this phase begins. It stops asynchronously, so the context waits for
 * it at most {@code spring.lifecycle.timeout-per-shutdown-phase}; the graceful phase ends in time for
 * the policy's final close to fit in that bound.
 *
 * <p>It is not pauseable: a paused context (Spring's test context cache pauses the contexts it is not
 * using) keeps its resources, open and usable, for when it is restarted.
 */
public final class VerbsTeardown implements SmartLifecycle {

    /** Below the web server's stop: no request is served while resources are released. */
    public static final int PHASE = WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE - 1024;

    /** The share of the shutdown phase the graceful phase may use; the rest is for the final close. */
    private static final double GRACEFUL_SHARE = 0.75;

    private static final Log logger = LogFactory.getLog(VerbsTeardown.class);

    private final Verbs verbs;
    private final TeardownPolicy policy;
    private final Duration timeout;
    private final GracefulDrain drain;
    private final LifecycleObserver observer;
    private volatile boolean running;
    /** Set when the teardown begins: from then on it alone releases resources. */
    private volatile boolean begun;
    private volatile @Nullable TeardownReport report;

    /**
     * How the graceful phase retries a refused strict close.
     *
     * @param maxAttempts the most strict close attempts
     * @param backoff the wait after each refused attempt (cut to the time left before the timeout)
     */
    public record Retry(int maxAttempts, IntervalFunction backoff) {
    }

    /**
     * @param policy what to do with what is still held once the graceful phase is over
     * @param timeout how long the graceful phase may last
     * @param retry how it retries
     * @param retries where its Resilience4j retry is registered, for metrics
     * @param phaseTimeout how long the context waits for a lifecycle phase to stop
     *     ({@code spring.lifecycle.timeout-per-shutdown-phase})
     */
    public VerbsTeardown(Verbs verbs, TeardownPolicy policy, Duration timeout, Retry retry, RetryRegistry retries,
            Duration phaseTimeout) {
        this(verbs, policy, timeout, retry, retries, phaseTimeout, LifecycleObserver.NONE);
    }

    /**
     * @param observer observes the teardown as one {@link LifecycleStep#TEARDOWN} step
     * @see #VerbsTeardown(Verbs, TeardownPolicy, Duration, Retry, RetryRegistry, Duration)
     */
    public VerbsTeardown(Verbs verbs, TeardownPolicy policy, Duration timeout, Retry retry, RetryRegistry retries,
            Duration phaseTimeout, LifecycleObserver observer) {
        this.verbs = verbs;
        this.policy = policy;
        Duration share = Duration.ofNanos((long) (phaseTimeout.toNanos() * GRACEFUL_SHARE));
        this.timeout = timeout.compareTo(share) <= 0 ? timeout : share;
        this.drain = new GracefulDrain(retries, retry);
        this.observer = observer;
    }

    public TeardownPolicy policy() {
        return policy;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        try {
            teardown();
        } finally {
            running = false;
        }
    }

    /**
     * Tears down on a thread of its own and reports back when done, so that the context's wait for this
     * phase is bounded by {@code spring.lifecycle.timeout-per-shutdown-phase}, whatever a native release
     * does.
     */
    @Override
    public void stop(Runnable callback) {
        Thread.ofPlatform().daemon().name("rdma-verbs-teardown").start(() -> {
            try {
                stop();
            } finally {
                callback.run();
            }
        });
    }

    /** A pause is no shutdown: the resources stay open for the restart. */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The report of the teardown, once it has run. */
    public Optional<TeardownReport> report() {
        return Optional.ofNullable(report);
    }

    /** Runs the teardown, once; later calls return the first report. */
    public synchronized TeardownReport teardown() {
        TeardownReport done = report;
        if (done != null) {
            return done;
        }
        begun = true;
        LifecycleStep step = LifecycleStep.teardown(policy.name().toLowerCase(Locale.ROOT), verbs.provider().name());
        return observer.observe(step, this::releaseGraph, r -> r.isComplete() ? "complete" : "incomplete");
    }

    private TeardownReport releaseGraph() {
        long start = System.nanoTime();
        int waiters = channelWaiters();
        GracefulDrain.Outcome graceful = verbs.resources().isEmpty()
                ? new GracefulDrain.Outcome(List.of(), 0, true)
                : drain.drain(verbs, timeout);
        List<ResourceRef> closed = new ArrayList<>(graceful.closed());
        List<StuckReference> cleared = new ArrayList<>();
        Map<Long, String> reasons = new HashMap<>();
        if (!graceful.drained()) {
            if (policy == TeardownPolicy.CASCADE) {
                verbs.stuckReferences().stream().filter(StuckReferenceDescriptor::holdsUpTheTeardown)
                        .forEach(cleared::add);
                CloseReport last = verbs.close(ClosePolicy.CASCADE);
                closed.addAll(last.closed());
                last.left().forEach(l -> reasons.put(l.resource().id(), reason(l.failure())));
            } else {
                closeWhatCanBeClosed(closed, reasons);
            }
        }
        TeardownReport done = new TeardownReport(policy, Duration.ofNanos(System.nanoTime() - start),
                graceful.attempts(), graceful.drained(), cleared, closed, leftovers(reasons));
        report = done;
        log(done, waiters);
        return done;
    }

    /**
     * Releases one resource whose bean is destroyed without the teardown having run (a context whose
     * refresh failed): Spring destroys dependents first, so the policy applies bean by bean. Once the
     * teardown has begun (it may still be running, past the shutdown phase's timeout) this does nothing.
     */
    public void release(VerbsResource resource) {
        if (begun || resource.isClosed()) {
            return;
        }
        try {
            resource.close(policy.closePolicy());
        } catch (VerbsException e) {
            logger.warn("RDMA verbs: " + resource.ref() + " was left open: " + e.getMessage());
        }
    }

    /** Strict, one resource at a time in plan order: a held resource keeps only its own ancestors open. */
    private void closeWhatCanBeClosed(List<ResourceRef> closed, Map<Long, String> reasons) {
        ClosePlan plan = verbs.planClose(ClosePolicy.STRICT);
        for (ClosePlan.Step step : plan.steps()) {
            Optional<VerbsResource> resource = verbs.find(step.resource().id());
            if (resource.isEmpty() || resource.get().isClosed()) {
                continue;
            }
            VerbsResource r = resource.get();
            ResourceRef ref = r.ref();
            try {
                r.close(ClosePolicy.STRICT);
                closed.add(ref);
            } catch (VerbsException e) {
                reasons.put(ref.id(), reason(e));
            }
        }
    }

    /** Why a release did not happen, without repeating the stuck references the report lists anyway. */
    private static String reason(VerbsException e) {
        return e instanceof CloseRefusedException ? e.verb() + " refused before the native call"
                : e.getMessage() == null ? e.toString() : e.getMessage();
    }

    private List<TeardownReport.Leftover> leftovers(Map<Long, String> reasons) {
        List<TeardownReport.Leftover> out = new ArrayList<>();
        for (VerbsResource r : verbs.resources()) {
            List<StuckReference> stuck = r.stuckReferences();
            String reason = reasons.getOrDefault(r.id(), stuck.isEmpty() ? "not released"
                    : stuck.getFirst().message());
            out.add(new TeardownReport.Leftover(r.ref(), reason, stuck));
        }
        return out;
    }

    private int channelWaiters() {
        int n = 0;
        for (VerbsResource r : verbs.resources()) {
            if (r instanceof CompletionChannel channel) {
                n += channel.waiters();
            }
        }
        return n;
    }

    private static void log(TeardownReport report, int waiters) {
        String block = report.describe();
        if (waiters > 0) {
            block += "\n  " + waiters + " thread(s) were waiting on completion channels; each left when its "
                    + "channel closed";
        }
        if (report.isComplete()) {
            logger.info(block);
        } else {
            logger.warn(block + "\n  Release those holders before the context stops (e.g. in a SmartLifecycle), "
                    + "or set rdma.verbs.teardown.policy=cascade to release everything.");
        }
    }
}
