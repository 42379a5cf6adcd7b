package io.rdmaverbs.spring.boot.messaging.converter;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;

import io.rdmaverbs.spring.boot.messaging.RdmaMessageHeaders;
import io.rdmaverbs.verbs.connection.Message;

import org.jspecify.annotations.Nullable;

/**
 * Raw bytes, whatever the content type: {@code byte[]} (a copy), {@code ByteBuffer} and
 * {@code MemorySegment} (views of the payload, valid while the handler runs; a segment in a registered
 * region is sent without a copy). Writes {@code application/octet-stream}.
 */
public final class BytesMessageConverter implements RdmaMessageConverter {

    @Override
    public boolean canWrite(Object payload) {
        return payload instanceof byte[] || payload instanceof ByteBuffer || payload instanceof MemorySegment;
    }

    @Override
    public boolean canRead(@Nullable String contentType, Class<?> type) {
        return type == byte[].class || type == ByteBuffer.class || type == MemorySegment.class;
    }

    @Override
    public Message write(Object payload) {
        Message m = switch (payload) {
            case byte[] bytes -> Message.of(bytes);
            case ByteBuffer buffer -> Message.of(buffer);
            case MemorySegment segment -> Message.of(segment);
            default -> throw new RdmaMessageConversionException("not bytes: " + payload.getClass().getName());
        };
        return m.withHeader(RdmaMessageHeaders.CONTENT_TYPE, ContentTypes.OCTET_STREAM);
    }

    @Override
    public Object read(Message message, Type type) {
        if (type == byte[].class) {
            return message.toByteArray();
        }
        if (type == ByteBuffer.class) {
            return message.asByteBuffer();
        }
        if (type == MemorySegment.class) {
            return message.payload();
        }
        throw new RdmaMessageConversionException("not a byte type: " + type.getTypeName());
    }
}
