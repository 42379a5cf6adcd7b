package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A message of a {@link Session}: a payload and a few application headers (UTF-8 keys and values, such
 * as a content type or a trace context), what one side sends and the other receives.
 *
 * <p>The payload is a {@link MemorySegment}: a heap array's, a buffer's, or native memory. A segment that
 * lies inside a memory region of the connection's protection domain is sent without a copy (and, when
 * the message is large, read by the peer straight from it); any other is copied once into the
 * connection's registered buffers. The send's future completes once the segment may be reused.
 */
public final class Message {

    private static final Message EMPTY = new Message(MemorySegment.ofArray(new byte[0]), Map.of());

    private final MemorySegment payload;
    private final Map<String, String> headers;

    private Message(MemorySegment payload, Map<String, String> headers) {
        this.payload = payload;
        this.headers = headers;
    }

    /** The bytes of {@code payload}, not copied: do not change them until the send completes. */
    public static Message of(byte[] payload) {
        return new Message(MemorySegment.ofArray(Objects.requireNonNull(payload, "payload")), Map.of());
    }

    /** The bytes between the buffer's position and its limit, not copied. */
    public static Message of(ByteBuffer payload) {
        return new Message(MemorySegment.ofBuffer(Objects.requireNonNull(payload, "payload")), Map.of());
    }

    /** The bytes of {@code payload}: zero-copy when it lies in a region of the connection's PD. */
    public static Message of(MemorySegment payload) {
        return new Message(Objects.requireNonNull(payload, "payload"), Map.of());
    }

    /** The text in UTF-8. */
    public static Message of(String text) {
        return of(Objects.requireNonNull(text, "text").getBytes(StandardCharsets.UTF_8));
    }

    /** No payload (headers only, or an empty reply). */
    public static Message empty() {
        return EMPTY;
    }

    /** This message with one more header (a later value for the same key replaces the earlier). */
    public Message withHeader(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(key, value);
        return new Message(payload, Map.copyOf(more));
    }

    /** This message with {@code headers} added. */
    public Message withHeaders(Map<String, String> added) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.putAll(added);
        return new Message(payload, Map.copyOf(more));
    }

    /** The payload. For a received message it is valid while its handler runs (see {@link InboundMessage}). */
    public MemorySegment payload() {
        return payload;
    }

    public long length() {
        return payload.byteSize();
    }

    public Map<String, String> headers() {
        return headers;
    }

    public @Nullable String header(String key) {
        return headers.get(key);
    }

    /** A copy of the payload. */
    public byte[] toByteArray() {
        return payload.toArray(ValueLayout.JAVA_BYTE);
    }

    /** The payload as UTF-8 text. */
    public String asString() {
        return new String(toByteArray(), StandardCharsets.UTF_8);
    }

    /** A read-only view of the payload, valid as long as the payload is. */
    public ByteBuffer asByteBuffer() {
        return payload.asByteBuffer().asReadOnlyBuffer();
    }

    /** A message with the same headers whose payload is a heap copy of this one's: it outlives its buffer. */
    Message detached() {
        return new Message(MemorySegment.ofArray(toByteArray()), headers);
    }

    static Message received(MemorySegment payload, Map<String, String> headers) {
        return new Message(payload, headers);
    }

    @Override
    public String toString() {
        return "message of " + length() + " bytes" + (headers.isEmpty() ? "" : " " + headers);
    }
}
