package io.rdmaverbs.spring.boot.messaging;

import java.lang.reflect.Method;
import java.util.List;

import io.rdmaverbs.verbs.connection.Message;

import org.jspecify.annotations.Nullable;

/**
 * One call of an {@link RdmaMessageMapping} method, once it returned (or its future completed), as an
 * {@link EndpointInvocationListener} sees it. Everything in it outlives the call: the message is a heap copy,
 * and an argument that was a view of the receive buffer ({@code ByteBuffer}, {@code MemorySegment}) is given
 * as a {@code byte[]} copy.
 *
 * @param listener the declared listener
 * @param route the route the message named ("" for none)
 * @param method the endpoint's method
 * @param request whether the sender waited for a reply
 * @param message the message, headers included
 * @param arguments the method's arguments, in order
 * @param result what the method returned (a future's value), null for void
 * @param error what it threw (a future's failure), null when it returned
 */
public record EndpointInvocation(String listener, String route, Method method, boolean request, Message message,
        List<@Nullable Object> arguments, @Nullable Object result, @Nullable Throwable error) {

    /** The payload argument, or the message's bytes when the method takes none. */
    public @Nullable Object payload() {
        for (int i = 0; i < method.getParameterCount(); i++) {
            if (EndpointMethod.isPayload(method.getParameters()[i])) {
                return arguments.get(i);
            }
        }
        return message.toByteArray();
    }
}
