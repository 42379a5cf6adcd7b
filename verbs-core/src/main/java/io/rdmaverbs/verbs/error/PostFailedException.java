package io.rdmaverbs.verbs.error;

import org.jspecify.annotations.Nullable;

/**
 * A post of a chain of work requests failed at one of them: the provider's {@code bad_wr}
 * ({@code ibv_post_send(3)}, {@code ibv_post_recv(3)}, {@code ibv_post_srq_recv(3)}). The requests
 * before {@link #failedIndex()} were posted and will complete; the one at it and all after it were not.
 * A provider that fails the whole call without naming a request (rxe's doorbell refusing a QP that is
 * not ready to send leaves {@code bad_wr} NULL) is reported as failing at index 0: nothing was posted.
 */
public final class PostFailedException extends VerbsException {

    private final int failedIndex;
    private final int chainLength;

    public PostFailedException(String verb, String resource, @Nullable Errno errno, String message, int failedIndex,
            int chainLength) {
        super(verb, resource, errno, message + " (request " + failedIndex + " of a chain of " + chainLength + ": "
                + posted(failedIndex) + ", it and the " + (chainLength - failedIndex - 1) + " after it were not)");
        if (failedIndex < 0 || failedIndex >= chainLength) {
            throw new IllegalArgumentException("failed index " + failedIndex + " outside a chain of " + chainLength);
        }
        this.failedIndex = failedIndex;
        this.chainLength = chainLength;
    }

    private PostFailedException(VerbsException renamed, int failedIndex, int chainLength) {
        super(renamed.verb(), renamed.resource(), renamed.errno(), renamed.reason(), renamed.getCause());
        this.failedIndex = failedIndex;
        this.chainLength = chainLength;
    }

    private static String posted(int index) {
        return index == 0 ? "none was posted" : "requests 0.." + (index - 1) + " were posted";
    }

    /** The index of the request that failed ({@code bad_wr}); also how many before it were posted. */
    public int failedIndex() {
        return failedIndex;
    }

    /** How many requests were posted and will complete. */
    public int posted() {
        return failedIndex;
    }

    /** How many requests the chain held. */
    public int chainLength() {
        return chainLength;
    }

    @Override
    public PostFailedException about(String resourceName) {
        VerbsException renamed = super.about(resourceName);
        PostFailedException copy = new PostFailedException(renamed, failedIndex, chainLength);
        copy.setStackTrace(getStackTrace());
        return copy;
    }
}
