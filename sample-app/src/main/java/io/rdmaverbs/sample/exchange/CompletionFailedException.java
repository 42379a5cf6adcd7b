package io.rdmaverbs.sample.exchange;

/**
 * A work request completed with an error status (a port that is down gives RC requesters
 * {@code IBV_WC_RETRY_EXC_ERR}, a dead device flushes with {@code IBV_WC_WR_FLUSH_ERR}): the verbs
 * themselves succeeded, the traffic did not. The message names the QPs and both statuses.
 */
public final class CompletionFailedException extends RuntimeException {

    public CompletionFailedException(String message) {
        super(message);
    }
}
