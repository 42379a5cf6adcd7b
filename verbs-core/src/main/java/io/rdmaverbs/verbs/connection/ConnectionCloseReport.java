package io.rdmaverbs.verbs.connection;

import java.net.InetSocketAddress;
import java.time.Duration;

import io.rdmaverbs.verbs.CloseReport;

import org.jspecify.annotations.Nullable;

/**
 * What closing one {@link Connection} did, phase by phase (docs/connections.md, "Closing"): how it was
 * disconnected, when its DISCONNECTED came, how many work requests the QP's error state flushed, and what
 * the release released and left.
 *
 * @param connection the connection's name
 * @param peer the other side's address, when known
 * @param disconnect who disconnected
 * @param disconnectFailure why {@code rdma_disconnect} failed, for {@link Disconnect#FAILED}; else null
 * @param disconnectedAfter how long after this side's {@code rdma_disconnect} its DISCONNECTED came (zero
 *        when the peer disconnected first); null when it did not come within the wait
 * @param flushedWorkRequests completions in error polled over the connection's life (WR_FLUSH_ERR, mostly)
 * @param flushComplete whether every work request posted came back before the release
 * @param released what the release released, in order, and what it left
 */
public record ConnectionCloseReport(String connection, @Nullable InetSocketAddress peer, Disconnect disconnect,
        @Nullable String disconnectFailure, @Nullable Duration disconnectedAfter, int flushedWorkRequests, boolean flushComplete, CloseReport released) {

    /** Who ended the connection. */
    public enum Disconnect {
        /**
         * This side called {@code rdma_disconnect(3)}: the peer got DISCONNECTED. Also for a connection this
         * side accepted whose ESTABLISHED was not read yet (its peer may be connected already).
         */
        BY_THIS_SIDE,
        /** The peer disconnected first; this side answered. */
        BY_PEER,
        /** It was never connected, or had failed: nothing to disconnect. */
        NOT_CONNECTED,
        /** {@code rdma_disconnect} failed; the release's {@code rdma_destroy_id} tells the peer. */
        FAILED
    }

    public boolean isComplete() {
        return released.isComplete();
    }
}
