package io.rdmaverbs.verbs.connection;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

/**
 * The peer rejected the connection ({@code RDMA_CM_EVENT_REJECTED}): with the transport's reason
 * ({@code event->status}: 28, consumer defined, when the peer's application called {@code rdma_reject};
 * 8, invalid service id, when nothing listens on the port) and the private data the peer sent.
 */
public final class ConnectionRejectedException extends VerbsException {

    /** {@code IB_CM_REJ_CONSUMER_DEFINED}: the peer's application rejected (or closed) the request. */
    public static final int CONSUMER_DEFINED = 28;
    /** {@code IB_CM_REJ_INVALID_SERVICE_ID}: nothing listens on the port. */
    public static final int INVALID_SERVICE_ID = 8;

    private final int rejectReason;
    private final byte[] peerPrivateData;

    ConnectionRejectedException(String resource, int reason, byte[] peerPrivateData) {
        super("rdma_connect", resource, Errno.ECONNREFUSED, "RDMA_CM_EVENT_REJECTED, reason " + reason + " ("
                + describe(reason) + "), " + peerPrivateData.length + " bytes of private data from the peer"
                + protocolRefusal(peerPrivateData));
        this.rejectReason = reason;
        this.peerPrivateData = peerPrivateData.clone();
    }

    /** The transport's reject reason ({@code event->status}); {@link #reason()} is the message. */
    public int rejectReason() {
        return rejectReason;
    }

    /** A copy of the private data the peer rejected with (zero-padded to the transport's length). */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /** A listener that refused the session protocol's version says why in its private data: quoted here. */
    private static String protocolRefusal(byte[] data) {
        String text = new String(data, java.nio.charset.StandardCharsets.US_ASCII);
        if (!text.startsWith("RVMS v")) {
            return "";
        }
        int end = text.indexOf('\0');
        return ": " + (end < 0 ? text : text.substring(0, end));
    }

    private static String describe(int reason) {
        return switch (reason) {
            case CONSUMER_DEFINED -> "consumer defined: the peer rejected the request";
            case INVALID_SERVICE_ID -> "invalid service id: nothing listens on that port";
            default -> "see the IB CM REJ reasons";
        };
    }
}
