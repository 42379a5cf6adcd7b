package io.rdmaverbs.verbs;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A borrower's declaration that it is using a resource. While a lease is held, a strict close of the
 * resource is refused and the lease is reported as a stuck reference naming its holder, the time it
 * was taken and the stack that took it (as HikariCP reports a leaked connection). A cascade close
 * revokes it. Release it with {@link #close()} (idempotent), ideally in try-with-resources.
 */
public final class Lease implements AutoCloseable {

    private final VerbsResource resource;
    private final String holder;
    private final String thread;
    private final Instant since;
    private final StackTraceElement[] stack;
    private volatile @Nullable State ended;

    private enum State { RELEASED, REVOKED }

    Lease(VerbsResource resource, String holder) {
        this.resource = resource;
        this.holder = holder;
        this.thread = Thread.currentThread().getName();
        this.since = Instant.now();
        StackTraceElement[] full = new Throwable().getStackTrace();
        // Drop the frames of this class and VerbsResource.lease: the caller is what matters.
        this.stack = Arrays.copyOfRange(full, Math.min(2, full.length), full.length);
    }

    public ResourceRef resource() {
        return resource.ref();
    }

    /** Who took it, as the borrower described itself. */
    public String holder() {
        return holder;
    }

    /** The thread that took it. */
    public String thread() {
        return thread;
    }

    public Instant since() {
        return since;
    }

    public Duration heldFor() {
        return Duration.between(since, Instant.now());
    }

    /** Where it was taken, innermost frame first. */
    public List<StackTraceElement> stack() {
        return List.of(stack);
    }

    public boolean isHeld() {
        return ended == null;
    }

    /** Whether a cascade close took the resource away from the holder. */
    public boolean isRevoked() {
        return ended == State.REVOKED;
    }

    @Override
    public void close() {
        if (ended == null) {
            ended = State.RELEASED;
            resource.leaseEnded(this);
        }
    }

    void revoke() {
        if (ended == null) {
            ended = State.REVOKED;
            resource.leaseEnded(this);
        }
    }

    @Override
    public String toString() {
        return "lease on " + resource.ref() + " held by '" + holder + "' (thread " + thread + ") since " + since;
    }
}
