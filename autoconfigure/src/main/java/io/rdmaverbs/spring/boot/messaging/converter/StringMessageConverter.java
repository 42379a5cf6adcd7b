package io.rdmaverbs.spring.boot.messaging.converter;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

import io.rdmaverbs.spring.boot.messaging.RdmaMessageHeaders;
import io.rdmaverbs.verbs.connection.Message;

import org.jspecify.annotations.Nullable;

/**
 * Text: writes a {@code String} in UTF-8 as {@code text/plain;charset=UTF-8}; reads any message as a
 * {@code String} in the charset its content type names (UTF-8 when none), so a JSON payload read as a
 * {@code String} is its text.
 */
public final class StringMessageConverter implements RdmaMessageConverter {

    @Override
    public boolean canWrite(Object payload) {
        return payload instanceof String;
    }

    @Override
    public boolean canRead(@Nullable String contentType, Class<?> type) {
        return type == String.class;
    }

    @Override
    public Message write(Object payload) {
        return Message.of(((String) payload).getBytes(StandardCharsets.UTF_8))
                .withHeader(RdmaMessageHeaders.CONTENT_TYPE, ContentTypes.TEXT);
    }

    @Override
    public Object read(Message message, Type type) {
        return new String(message.toByteArray(), ContentTypes.charset(message.header(RdmaMessageHeaders.CONTENT_TYPE)));
    }
}
