package io.rdmaverbs.spring.boot.messaging.converter;

import java.lang.reflect.Type;
import java.util.List;

import io.rdmaverbs.spring.boot.messaging.RdmaMessageHeaders;
import io.rdmaverbs.verbs.connection.Message;

import org.springframework.core.ResolvableType;

/**
 * The converters of an application, in order: the first that can write a payload writes it; the first that
 * can read a message's content type as the type asked for reads it. The application's own converters come
 * before the defaults (bytes, text, then JSON when Jackson is there).
 */
public final class RdmaMessageConverters {

    private final List<RdmaMessageConverter> converters;

    public RdmaMessageConverters(List<? extends RdmaMessageConverter> converters) {
        this.converters = List.copyOf(converters);
    }

    /** Bytes and text only. */
    public static RdmaMessageConverters defaults() {
        return new RdmaMessageConverters(List.of(new BytesMessageConverter(), new StringMessageConverter()));
    }

    public List<RdmaMessageConverter> converters() {
        return converters;
    }

    /**
     * {@code payload} as a message: a {@link Message} as it is, anything else by the first converter that
     * writes it.
     *
     * @throws RdmaMessageConversionException when none does
     */
    public Message toMessage(Object payload) {
        if (payload instanceof Message message) {
            return message;
        }
        for (RdmaMessageConverter c : converters) {
            if (c.canWrite(payload)) {
                return c.write(payload);
            }
        }
        throw new RdmaMessageConversionException("no converter writes a " + payload.getClass().getName() + " (there are "
                + names() + "; JSON needs Jackson 3, tools.jackson.core:jackson-databind, on the class path)");
    }

    /**
     * The payload of {@code message} as {@code type}, read by the first converter that reads its content type
     * as that type; the message itself for {@code Message}.
     *
     * @throws RdmaMessageConversionException when none does, or the payload does not parse
     */
    public Object fromMessage(Message message, Type type) {
        Class<?> raw = ResolvableType.forType(type).toClass();
        if (raw == Message.class) {
            return message;
        }
        String contentType = message.header(RdmaMessageHeaders.CONTENT_TYPE);
        for (RdmaMessageConverter c : converters) {
            if (c.canRead(contentType, raw)) {
                return c.read(message, type);
            }
        }
        throw new RdmaMessageConversionException("no converter reads a message of content type "
                + (contentType == null ? "(none)" : "'" + contentType + "'") + " as a " + type.getTypeName()
                + " (there are " + names() + ")");
    }

    /** {@link #fromMessage(Message, Type)} for a class. */
    @SuppressWarnings("unchecked")
    public <T> T fromMessage(Message message, Class<T> type) {
        return (T) fromMessage(message, (Type) type);
    }

    private List<String> names() {
        return converters.stream().map(c -> c.getClass().getSimpleName()).toList();
    }
}
