package io.rdmaverbs.verbs.connection;

import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.attr.QpCapabilities;

/**
 * What each {@link Connection} is given: its RC QP's capabilities, one CQ for both queues, and the
 * buffers it registers (one memory region) and posts for receive BEFORE connecting or accepting, so that
 * the peer's first send never meets an empty receive queue.
 *
 * <pre>{@code
 * ConnectionSpec.rc(32, 8192).withSendBuffers(4, 8192).withCompletionChannel(true)
 * }</pre>
 *
 * @param sendQueueDepth send work requests outstanding at once ({@code max_send_wr})
 * @param receiveQueueDepth receive work requests outstanding at once ({@code max_recv_wr})
 * @param maxSendSge scatter/gather entries per send
 * @param maxReceiveSge scatter/gather entries per receive
 * @param maxInlineData bytes a send may carry inline
 * @param completionQueueEntries the CQ's size: at least both queue depths together
 * @param receiveBufferCount receive buffers, each posted once before the handshake (1..receiveQueueDepth)
 * @param receiveBufferSize bytes per receive buffer
 * @param sendBufferCount send buffers, registered with the receive buffers (0 for none)
 * @param sendBufferSize bytes per send buffer
 * @param completionChannel whether the CQ of a raw connection reports through a completion channel of its own
 *        (a messaging connection's CQ is on its completion loop's channel)
 * @param parameters the handshake's {@code responder_resources} (RDMA READs and atomics the peer may have
 *        outstanding on this QP), {@code initiator_depth} (this side's outstanding READs and atomics: a
 *        rendezvous reads with that many in flight), retry and RNR retry counts ({@code rdma_connect(3)});
 *        their private data is not used (the connect's or accept's is)
 */
public record ConnectionSpec(int sendQueueDepth, int receiveQueueDepth, int maxSendSge, int maxReceiveSge,
        int maxInlineData, int completionQueueEntries, int receiveBufferCount, int receiveBufferSize,
        int sendBufferCount, int sendBufferSize, boolean completionChannel, CmConnectionParams parameters) {

    /** Refuses sizes the connection could not be built with, naming the field. */
    public ConnectionSpec {
        atLeast("sendQueueDepth", sendQueueDepth, 1);
        atLeast("receiveQueueDepth", receiveQueueDepth, 1);
        atLeast("maxSendSge", maxSendSge, 1);
        atLeast("maxReceiveSge", maxReceiveSge, 1);
        atLeast("maxInlineData", maxInlineData, 0);
        if (completionQueueEntries < sendQueueDepth + receiveQueueDepth) {
            throw new IllegalArgumentException("completionQueueEntries " + completionQueueEntries + " cannot hold a "
                    + "completion of every work request of both queues: at least " + (sendQueueDepth + receiveQueueDepth));
        }
        atLeast("receiveBufferCount", receiveBufferCount, 1);
        if (receiveBufferCount > receiveQueueDepth) {
            throw new IllegalArgumentException("receiveBufferCount " + receiveBufferCount + " buffers are all posted "
                    + "before the handshake: at most receiveQueueDepth " + receiveQueueDepth);
        }
        atLeast("receiveBufferSize", receiveBufferSize, 1);
        atLeast("sendBufferCount", sendBufferCount, 0);
        atLeast("sendBufferSize", sendBufferSize, 1);
        java.util.Objects.requireNonNull(parameters, "parameters");
    }

    /**
     * An RC connection with 16 work requests each way, two send SGEs (a header and a payload, gathered
     * without a copy) and one receive SGE, a 32-entry CQ, 16 receive and 16 send buffers of 4 KiB, and
     * {@link #HANDSHAKE}'s parameters.
     */
    /**
     * Four RDMA READs or atomics outstanding each way (a rendezvous reads four chunks at once; rxe allows 128,
     * mlx5 16), 6 transport retries and infinite RNR retry, as {@link CmConnectionParams#defaults()} says why.
     */
    static final CmConnectionParams HANDSHAKE = new CmConnectionParams(new byte[0], 4, 4, 6, 7);

    public static ConnectionSpec rc() {
        return rc(16, 4096);
    }

    /** An RC connection {@code queueDepth} deep each way with as many receive and send buffers of {@code bufferSize}. */
    public static ConnectionSpec rc(int queueDepth, int bufferSize) {
        return new ConnectionSpec(queueDepth, queueDepth, 2, 1, 0, 2 * queueDepth, queueDepth, bufferSize, queueDepth,
                bufferSize, false, HANDSHAKE);
    }

    /** The same with these queue depths (and a CQ grown to hold both, when it did not). */
    public ConnectionSpec withQueueDepths(int send, int receive) {
        return new ConnectionSpec(send, receive, maxSendSge, maxReceiveSge, maxInlineData,
                Math.max(completionQueueEntries, send + receive), Math.min(receiveBufferCount, receive),
                receiveBufferSize, sendBufferCount, sendBufferSize, completionChannel, parameters);
    }

    public ConnectionSpec withScatterGather(int send, int receive) {
        return new ConnectionSpec(sendQueueDepth, receiveQueueDepth, send, receive, maxInlineData,
                completionQueueEntries, receiveBufferCount, receiveBufferSize, sendBufferCount, sendBufferSize,
                completionChannel, parameters);
    }

    public ConnectionSpec withMaxInlineData(int bytes) {
        return new ConnectionSpec(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, bytes,
                completionQueueEntries, receiveBufferCount, receiveBufferSize, sendBufferCount, sendBufferSize,
                completionChannel, parameters);
    }

    public ConnectionSpec withCompletionQueueEntries(int entries) {
        return new ConnectionSpec(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, maxInlineData, entries,
                receiveBufferCount, receiveBufferSize, sendBufferCount, sendBufferSize, completionChannel, parameters);
    }

    public ConnectionSpec withReceiveBuffers(int count, int size) {
        return new ConnectionSpec(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, maxInlineData,
                completionQueueEntries, count, size, sendBufferCount, sendBufferSize, completionChannel, parameters);
    }

    public ConnectionSpec withSendBuffers(int count, int size) {
        return new ConnectionSpec(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, maxInlineData,
                completionQueueEntries, receiveBufferCount, receiveBufferSize, count, size, completionChannel, parameters);
    }

    public ConnectionSpec withCompletionChannel(boolean channel) {
        return new ConnectionSpec(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, maxInlineData,
                completionQueueEntries, receiveBufferCount, receiveBufferSize, sendBufferCount, sendBufferSize, channel, parameters);
    }

    /**
     * The same with these handshake parameters: {@code responderResources} incoming and {@code initiatorDepth}
     * outgoing RDMA READs/atomics at once (each at most the device's {@code max_qp_rd_atom} /
     * {@code max_qp_init_rd_atom}, checked when the connection is made), {@code retryCount} transport retries
     * (0..7; 7 is "forever" on rxe) and {@code rnrRetryCount} (0..7, 7 infinite).
     */
    public ConnectionSpec withHandshake(int responderResources, int initiatorDepth, int retryCount, int rnrRetryCount) {
        return new ConnectionSpec(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, maxInlineData,
                completionQueueEntries, receiveBufferCount, receiveBufferSize, sendBufferCount, sendBufferSize,
                completionChannel, new CmConnectionParams(new byte[0], responderResources, initiatorDepth, retryCount,
                        rnrRetryCount));
    }

    /** The QP capabilities asked of {@code rdma_create_qp}. */
    public QpCapabilities capabilities() {
        return new QpCapabilities(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, maxInlineData);
    }

    /** The bytes of the one memory region: the receive buffers, then the send buffers. */
    public long bufferBytes() {
        return (long) receiveBufferCount * receiveBufferSize + (long) sendBufferCount * sendBufferSize;
    }

    private static void atLeast(String field, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be at least " + min + ", was " + value);
        }
    }
}
