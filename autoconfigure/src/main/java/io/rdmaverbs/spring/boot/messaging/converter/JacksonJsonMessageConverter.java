package io.rdmaverbs.spring.boot.messaging.converter;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;

import io.rdmaverbs.spring.boot.messaging.RdmaMessageHeaders;
import io.rdmaverbs.verbs.connection.Message;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.util.ByteBufferBackedInputStream;

import org.jspecify.annotations.Nullable;

/**
 * JSON with Jackson 3 (the {@code JsonMapper} Spring Boot configures, {@code spring.jackson.*}): writes any
 * object that is not bytes or text as {@code application/json}; reads a message whose content type is JSON
 * ({@code application/json}, {@code application/*+json}), or that names none, into the type asked for,
 * generics included. The payload is parsed where it landed, without a copy into a {@code byte[]}.
 */
public final class JacksonJsonMessageConverter implements RdmaMessageConverter {

    private final JsonMapper mapper;

    public JacksonJsonMessageConverter(JsonMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public boolean canWrite(Object payload) {
        return !(payload instanceof byte[] || payload instanceof ByteBuffer || payload instanceof MemorySegment
                || payload instanceof CharSequence || payload instanceof Message);
    }

    @Override
    public boolean canRead(@Nullable String contentType, Class<?> type) {
        return contentType == null || ContentTypes.isJson(contentType);
    }

    @Override
    public Message write(Object payload) {
        try {
            return Message.of(mapper.writeValueAsBytes(payload)).withHeader(RdmaMessageHeaders.CONTENT_TYPE,
                    ContentTypes.JSON);
        } catch (JacksonException e) {
            throw new RdmaMessageConversionException("a " + payload.getClass().getName() + " could not be written as "
                    + "JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public Object read(Message message, Type type) {
        try {
            return mapper.readValue(new ByteBufferBackedInputStream(message.asByteBuffer()),
                    mapper.getTypeFactory().constructType(type));
        } catch (JacksonException e) {
            throw new RdmaMessageConversionException("a JSON payload of " + message.length() + " bytes is not a "
                    + type.getTypeName() + ": " + e.getOriginalMessage(), e);
        }
    }
}
