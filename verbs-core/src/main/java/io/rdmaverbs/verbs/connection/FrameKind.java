package io.rdmaverbs.verbs.connection;

/**
 * What one SEND of the session protocol carries (the first byte of its {@link FrameHeader}); the numbers
 * are the wire's and never change within a protocol version.
 */
enum FrameKind {
    /** A one-way message for the peer's handler. */
    MESSAGE(1),
    /** A message whose sender waits for a REPLY or ERROR with the same correlation id. */
    REQUEST(2),
    REPLY(3),
    /** The request's handler failed, or nobody takes it: the payload is the reason. */
    ERROR(4),
    /** Nothing but the credits granted; never triggers a grant in return. */
    CREDIT(5),
    /** A sign of life when nothing else was sent for the keepalive interval. */
    KEEPALIVE(6),
    /** The descriptor of a large message: the receiver reads it (RDMA READ) from the sender's region. */
    RENDEZVOUS(7),
    /** The receiver read a large message: the sender may release its source. */
    RENDEZVOUS_DONE(8),
    /** The owner withdraws an exported region: the peer's handles close, then it answers REVOKE_ACK. */
    REVOKE(9),
    REVOKE_ACK(10);

    private static final FrameKind[] BY_CODE = new FrameKind[11];

    static {
        for (FrameKind k : values()) {
            BY_CODE[k.code] = k;
        }
    }

    final byte code;

    FrameKind(int code) {
        this.code = (byte) code;
    }

    /** The kind of wire code {@code code}; null for a code this version does not know. */
    static FrameKind of(int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** Whether receiving one counts towards sending an explicit CREDIT back (all but CREDIT itself). */
    boolean triggersGrant() {
        return this != CREDIT;
    }
}
