package io.rdmaverbs.verbs.connection;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * How the futures of sessions fail, for the code that waits on them (a session's blocking calls, and
 * the starter's template and peers). A {@link CompletableFuture} stage wraps a failure in a
 * {@link CompletionException} and {@code get()} in an {@link ExecutionException}; whoever waited should
 * see the failure itself (a {@link RemoteErrorException}, a {@link io.rdmaverbs.verbs.ResourceClosedException}),
 * with the place it waited added, not a wrapper to unpack.
 */
public final class Futures {

    private Futures() {
    }

    /** What a completion stage failed with: {@code e}'s cause if a stage wrapped it, else {@code e}. */
    public static Throwable cause(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /**
     * What to throw for the failure a {@code get()} ({@link ExecutionException}) or a {@code join()}
     * ({@link CompletionException}) reported: an unchecked cause as it is, with the waiter's stack added as a
     * suppressed exception ("waited for here") so both places show; an {@link Error} is thrown; a checked
     * cause goes through {@code checked}.
     */
    public static RuntimeException rethrow(Exception e, Function<Throwable, RuntimeException> checked) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (cause instanceof RuntimeException r) {
            r.addSuppressed(new Exception("waited for here"));
            return r;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return checked.apply(cause);
    }
}
