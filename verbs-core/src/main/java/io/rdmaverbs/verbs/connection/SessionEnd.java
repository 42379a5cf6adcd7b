package io.rdmaverbs.verbs.connection;

import java.util.List;

/**
 * Why a {@link Session} ended: closed by this side, the peer disconnected, a work request completed in
 * error (a link cut shows as RETRY_EXC_ERR), or the peer broke the protocol.
 *
 * @param reason in words
 * @param byPeer whether the other side ended it (its DISCONNECTED, or its REJECT)
 * @param local whether this side closed it
 * @param failedCompletions the completions in error, summarised: {@code 1 x SEND RETRY_EXC_ERR}, {@code 16 x
 *        RECV WR_FLUSH_ERR}, in order of first appearance (what the QP's error state flushed is counted too)
 */
public record SessionEnd(String reason, boolean byPeer, boolean local, List<String> failedCompletions) {

    public SessionEnd {
        failedCompletions = List.copyOf(failedCompletions);
    }

    @Override
    public String toString() {
        return reason + (failedCompletions.isEmpty() ? "" : " " + failedCompletions);
    }
}
