package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fixed header at the start of every SEND of the session protocol, version {@value Hello#VERSION}
 * (docs/connections.md, "The wire protocol"), big-endian:
 *
 * <pre>
 *  0  u8   kind ({@link FrameKind})
 *  1  u8   flags
 *  2  u16  credits granted: receive buffers posted again since the sender's last grant
 *  4  u32  payload length (bytes after the headers; RENDEZVOUS: the large message's length)
 *  8  u64  correlation id (REQUEST, REPLY, ERROR; RENDEZVOUS, RENDEZVOUS_DONE: the transfer; REVOKE,
 *          REVOKE_ACK: the export)
 * 16  u16  headers length (bytes of application headers after this header)
 * 18  u16  reserved, 0
 * 20  u32  sequence number of the frame in its direction
 * </pre>
 *
 * Application headers follow: a u16 count, then per entry a u16 key length, the key's UTF-8 bytes, a
 * u16 value length and the value's UTF-8 bytes.
 */
record FrameHeader(FrameKind kind, int flags, int credits, long length, long correlation, int headersLength,
        int sequence) {

    static final int BYTES = 24;
    /** Flag of a RENDEZVOUS: the large message is a request (its reply is matched by correlation). */
    static final int FLAG_REQUEST = 1;
    static final int MAX_CREDITS = 0xFFFF;

    private static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Writes a header of these fields at the start of {@code to}: field by field, so that a frame posted
     * allocates no header object (the outbox writes one per SEND).
     */
    static void write(MemorySegment to, FrameKind kind, int flags, int credits, long length, long correlation,
            int headersLength, int sequence) {
        to.set(U8, 0, kind.code);
        to.set(U8, 1, (byte) flags);
        to.set(U16, 2, (short) credits);
        to.set(U32, 4, (int) length);
        to.set(U64, 8, correlation);
        to.set(U16, 16, (short) headersLength);
        to.set(U16, 18, (short) 0);
        to.set(U32, 20, sequence);
    }

    /**
     * The header at the start of {@code frame} ({@code received} bytes arrived).
     *
     * @throws ProtocolException when it is not one of this version's frames
     */
    static FrameHeader read(MemorySegment frame, int received) {
        if (received < BYTES) {
            throw new ProtocolException("a frame of " + received + " bytes, shorter than the " + BYTES + "-byte header");
        }
        FrameKind kind = FrameKind.of(frame.get(U8, 0));
        if (kind == null) {
            throw new ProtocolException("a frame of unknown kind " + (frame.get(U8, 0) & 0xFF));
        }
        long length = Integer.toUnsignedLong(frame.get(U32, 4));
        int headersLength = Short.toUnsignedInt(frame.get(U16, 16));
        FrameHeader h = new FrameHeader(kind, frame.get(U8, 1) & 0xFF, Short.toUnsignedInt(frame.get(U16, 2)), length,
                frame.get(U64, 8), headersLength, frame.get(U32, 20));
        long inline = kind == FrameKind.RENDEZVOUS ? RendezvousDescriptor.BYTES : length;
        if ((long) BYTES + headersLength + inline > received) {
            throw new ProtocolException(kind + " frame says " + headersLength + " bytes of headers and " + inline
                    + " of payload, but " + received + " bytes arrived");
        }
        return h;
    }

    /** Where the payload starts in the frame. */
    long payloadOffset() {
        return BYTES + headersLength;
    }

    // ---- application headers ----------------------------------------------------------------------

    /** The encoded size of {@code headers}; 0 for none. */
    static int headersSize(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return 0;
        }
        int size = 2;
        for (Map.Entry<String, String> e : headers.entrySet()) {
            size += 4 + utf8(e.getKey()).length + utf8(e.getValue()).length;
        }
        return size;
    }

    /** Writes {@code headers} at {@code offset}; the bytes written ({@link #headersSize}). */
    static int writeHeaders(MemorySegment to, long offset, Map<String, String> headers) {
        if (headers.isEmpty()) {
            return 0;
        }
        long at = offset;
        to.set(U16, at, (short) headers.size());
        at += 2;
        for (Map.Entry<String, String> e : headers.entrySet()) {
            at = writeString(to, at, e.getKey());
            at = writeString(to, at, e.getValue());
        }
        return (int) (at - offset);
    }

    /** The application headers of a frame with this header. */
    Map<String, String> readHeaders(MemorySegment frame) {
        if (headersLength == 0) {
            return Map.of();
        }
        long at = BYTES;
        long end = BYTES + headersLength;
        int count = Short.toUnsignedInt(frame.get(U16, at));
        at += 2;
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String key = readString(frame, at, end);
            at += 2 + utf8Length(frame, at);
            String value = readString(frame, at, end);
            at += 2 + utf8Length(frame, at);
            out.put(key, value);
        }
        return Map.copyOf(out);
    }

    private static long writeString(MemorySegment to, long at, String s) {
        byte[] bytes = utf8(s);
        to.set(U16, at, (short) bytes.length);
        MemorySegment.copy(bytes, 0, to, U8, at + 2, bytes.length);
        return at + 2 + bytes.length;
    }

    private static int utf8Length(MemorySegment frame, long at) {
        return Short.toUnsignedInt(frame.get(U16, at));
    }

    private static String readString(MemorySegment frame, long at, long end) {
        int n = utf8Length(frame, at);
        if (at + 2 + n > end) {
            throw new ProtocolException("application headers run past their " + (end - BYTES) + " bytes");
        }
        byte[] bytes = new byte[n];
        MemorySegment.copy(frame, U8, at + 2, bytes, 0, n);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 0xFFFF) {
            throw new IllegalArgumentException("a header key or value is at most 65535 UTF-8 bytes, got " + bytes.length);
        }
        return bytes;
    }
}
