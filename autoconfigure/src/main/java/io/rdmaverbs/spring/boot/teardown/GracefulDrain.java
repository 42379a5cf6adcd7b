package io.rdmaverbs.spring.boot.teardown;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.error.VerbsException;

/**
 * The graceful phase of the teardown: strict closes of the whole graph, retried with exponential
 * backoff while they are refused (a lease, unacknowledged CQ events) or fail with EBUSY, until
 * everything is released, the attempts run out, or the timeout passes. A refused strict close touches
 * nothing, so retrying is always safe.
 */
final class GracefulDrain {

    /** The name of the Resilience4j retry, as its metrics are tagged. */
    static final String RETRY_NAME = "rdma-verbs-teardown";

    private final Retry retry;
    /** The deadline of the drain in progress; the retry's wait and its decision to go on both read it. */
    private volatile long deadlineNanos;

    GracefulDrain(RetryRegistry registry, VerbsTeardown.Retry settings) {
        IntervalFunction backoff = settings.backoff();
        RetryConfig config = RetryConfig.custom()
                .maxAttempts(settings.maxAttempts())
                .intervalBiFunction((attempt, outcome) -> Math.min(backoff.apply(attempt), remainingMillis()))
                .retryOnException(e -> isStillHeld(e) && remainingMillis() > 0)
                .build();
        this.retry = registry.retry(RETRY_NAME, config);
    }

    /**
     * What the graceful phase achieved.
     *
     * @param closed the resources released, in order
     * @param attempts the number of strict close attempts
     * @param drained whether everything was released
     */
    record Outcome(List<ResourceRef> closed, int attempts, boolean drained) {
    }

    Outcome drain(Verbs verbs, Duration timeout) {
        deadlineNanos = System.nanoTime() + timeout.toNanos();
        List<ResourceRef> closed = new ArrayList<>();
        AtomicInteger attempts = new AtomicInteger();
        try {
            retry.executeSupplier(() -> {
                attempts.incrementAndGet();
                CloseReport report = verbs.close(ClosePolicy.STRICT);
                closed.addAll(report.closed());
                if (!report.isComplete()) {
                    throw mostTelling(report);
                }
                return report;
            });
            return new Outcome(closed, attempts.get(), true);
        } catch (VerbsException e) {
            return new Outcome(closed, attempts.get(), false);
        }
    }

    private long remainingMillis() {
        return Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000);
    }

    /** A refusal, or a release the kernel answered with EBUSY: something may still let go. */
    private static boolean isStillHeld(Throwable e) {
        return e instanceof CloseRefusedException
                || e instanceof VerbsException v && Errno.EBUSY.equals(v.errno());
    }

    /** The first failure that is not a mere consequence of another ("not attempted: ..."). */
    private static VerbsException mostTelling(CloseReport report) {
        for (CloseReport.Leftover l : report.left()) {
            if (!l.reason().startsWith("not attempted")) {
                return l.failure();
            }
        }
        return report.left().getFirst().failure();
    }
}
