package io.rdmaverbs.spring.boot.messaging;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * A method of an {@link RdmaEndpoint} that takes the messages whose {@value RdmaMessageHeaders#ROUTE} header
 * names one of its routes (no route: the messages that carry none).
 *
 * <p>Parameters: the payload, at most one parameter without annotation, as {@code byte[]} (a copy),
 * {@code ByteBuffer} or {@code MemorySegment} (the receive buffer itself, valid during the call only),
 * {@code String}, or any type a converter reads (JSON); {@link RdmaHeader} values and the
 * {@link RdmaHeaders} map; the {@code InboundMessage}, its {@code Message}, {@code Session} or
 * {@code Connection}.
 *
 * <p>Return: the reply of a request, converted as a payload is (a {@code Message} goes as it is);
 * {@code void}: an empty reply to a request, nothing for a one-way message; a {@code CompletableFuture}
 * (any {@code CompletionStage}): the reply once it completes, from any thread. An exception is the
 * requester's error reply ({@code RdmaRemoteEndpointException} through {@link RdmaTemplate}), or, for a
 * one-way message, the {@link RdmaErrorHandler}'s.
 *
 * <p>Meta-annotated {@link Reflective}: ahead-of-time processing registers the method for invocation and its
 * payload and return types for data binding (JSON in a native image).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(RdmaMessageMappingReflectiveProcessor.class)
public @interface RdmaMessageMapping {

    /** The routes it takes; none: messages without a route. */
    String[] value() default {};
}
