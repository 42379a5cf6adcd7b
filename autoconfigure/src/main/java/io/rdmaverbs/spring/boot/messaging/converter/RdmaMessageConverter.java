package io.rdmaverbs.spring.boot.messaging.converter;

import java.lang.reflect.Type;

import io.rdmaverbs.verbs.connection.Message;

import org.jspecify.annotations.Nullable;

/**
 * Turns a payload object into a session {@link Message} and back, as Spring AMQP's
 * {@code MessageConverter} does for AMQP messages. The writer names what it wrote in the
 * {@code content-type} header; the reader is picked by that header and the type asked for.
 *
 * <p>A small SPI of the starter rather than spring-messaging's {@code MessageConverter}: a session message
 * is a payload segment with UTF-8 string headers, valid only while its handler runs, where Spring's
 * {@code Message<?>} holds an object payload and object headers; converting through it would copy every
 * payload into a {@code byte[]} first and pull spring-messaging into every application of the starter.
 */
public interface RdmaMessageConverter {

    /** Whether it writes {@code payload}. */
    boolean canWrite(Object payload);

    /**
     * Whether it reads a message of {@code contentType} (null: the message names none) as {@code type}.
     */
    boolean canRead(@Nullable String contentType, Class<?> type);

    /** {@code payload} as a message, with its {@code content-type} header. */
    Message write(Object payload);

    /**
     * The payload of {@code message} as {@code type} (generics included, as a method parameter declares
     * it). Called while the message's payload is valid: what it returns must not refer to that memory
     * unless the type says so ({@code MemorySegment}, {@code ByteBuffer}).
     *
     * @throws RdmaMessageConversionException when the payload is not a {@code type}
     */
    Object read(Message message, Type type);
}
