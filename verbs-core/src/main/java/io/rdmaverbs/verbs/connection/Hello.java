package io.rdmaverbs.verbs.connection;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

/**
 * The session protocol's part of the private data of {@code rdma_connect(3)} and {@code rdma_accept(3)}:
 * 16 bytes before the application's own, big-endian.
 *
 * <pre>
 *  0  u32  magic 'RVMS'
 *  4  u16  protocol version ({@value #VERSION})
 *  6  u16  flags, 0
 *  8  u16  receive buffers posted: the credits the peer starts with
 * 10  u16  session nonce: random, non-zero, different from the requester's on the passive side; a
 *          {@link RemoteKey} carries both sides' so that a key is refused on any other session
 * 12  u32  bytes per receive buffer, header included: the largest frame the peer may send eagerly
 * </pre>
 *
 * A listener that gets a request without it, or of another version, rejects the request saying so
 * ({@link #rejection}); a connect whose accept lacks it fails the same way.
 *
 * @param version the peer's protocol version
 * @param receiveBuffers the receive buffers the peer posted before the handshake
 * @param receiveBufferSize bytes per receive buffer
 * @param nonce the side's session nonce (0 from a peer that predates it)
 */
record Hello(int version, int receiveBuffers, int receiveBufferSize, int nonce) {

    static final int MAGIC = 0x52564D53;
    static final int VERSION = 1;
    static final int BYTES = 16;

    static Hello of(ConnectionSpec spec, int nonce) {
        return new Hello(VERSION, spec.receiveBufferCount(), spec.receiveBufferSize(), nonce);
    }

    /**
     * A new session nonce: random, never 0, and never the requester's (the passive side knows it), so that the
     * two sides of a session always differ and a key can tell its exporter from its importer.
     */
    static int newNonce(@Nullable Hello requester) {
        return newNonce(requester, ThreadLocalRandom.current());
    }

    static int newNonce(@Nullable Hello requester, RandomGenerator random) {
        int n;
        do {
            n = 1 + random.nextInt(0xFFFF);
        } while (requester != null && n == requester.nonce());
        return n;
    }

    /** This hello, then {@code application} (the user's private data). */
    byte[] prefix(byte[] application) {
        ByteBuffer b = ByteBuffer.allocate(BYTES + application.length);
        b.putInt(MAGIC).putShort((short) version).putShort((short) 0).putShort((short) receiveBuffers)
                .putShort((short) nonce).putInt(receiveBufferSize).put(application);
        return b.array();
    }

    /**
     * The peer's hello at the start of {@code privateData}.
     *
     * @throws ProtocolException naming what the peer sent instead (no hello, another version)
     */
    static Hello parse(byte[] privateData) {
        if (privateData.length < BYTES) {
            throw new ProtocolException("the peer sent " + privateData.length + " bytes of private data, no RVMS hello: "
                    + "it does not speak the session protocol (version " + VERSION + ")");
        }
        ByteBuffer b = ByteBuffer.wrap(privateData);
        int magic = b.getInt();
        if (magic != MAGIC) {
            throw new ProtocolException("the peer's private data starts with 0x" + Integer.toHexString(magic)
                    + ", not the RVMS hello: it does not speak the session protocol (version " + VERSION + ")");
        }
        int version = Short.toUnsignedInt(b.getShort());
        if (version != VERSION) {
            throw new ProtocolException("the peer speaks session protocol version " + version + "; this side speaks "
                    + "version " + VERSION + " only");
        }
        b.getShort();
        int buffers = Short.toUnsignedInt(b.getShort());
        int nonce = Short.toUnsignedInt(b.getShort());
        int size = b.getInt();
        if (buffers < 2 || size < FrameHeader.BYTES + RendezvousDescriptor.BYTES) {
            throw new ProtocolException("the peer posted " + buffers + " receive buffer(s) of " + size + " bytes: the "
                    + "protocol needs at least 2 of " + (FrameHeader.BYTES + RendezvousDescriptor.BYTES));
        }
        return new Hello(version, buffers, size, nonce);
    }

    /** The application's private data after the hello. */
    static byte[] application(byte[] privateData) {
        return privateData.length <= BYTES ? new byte[0] : Arrays.copyOfRange(privateData, BYTES, privateData.length);
    }

    /** The private data of a REJECT for a peer that does not speak this version: why, in ASCII. */
    static byte[] rejection(ProtocolException why) {
        byte[] text = ("RVMS v" + VERSION + ": " + why.getMessage()).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        return Arrays.copyOf(text, Math.min(text.length, io.rdmaverbs.verbs.attr.CmConnectionParams.MAX_REJECT_PRIVATE_DATA));
    }
}
