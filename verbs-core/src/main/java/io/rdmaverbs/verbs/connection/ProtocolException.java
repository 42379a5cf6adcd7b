package io.rdmaverbs.verbs.connection;

/**
 * The peer sent something the session protocol does not allow (a frame too short for its header, an
 * unknown kind, a reply nobody asked for in a way no version produces): the session ends, as a peer that
 * breaks the protocol can no longer be trusted with this side's memory.
 */
public final class ProtocolException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ProtocolException(String message) {
        super(message);
    }
}
