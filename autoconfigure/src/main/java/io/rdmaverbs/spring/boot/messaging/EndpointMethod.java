package io.rdmaverbs.spring.boot.messaging;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import io.rdmaverbs.spring.boot.messaging.converter.RdmaMessageConverters;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.InboundMessage;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.Session;

import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.util.ReflectionUtils;

/**
 * One {@link RdmaMessageMapping} method of a bean: how each parameter is taken from an inbound message, the
 * call, and what its return value replies. Built once, at startup, so that a method the endpoint model
 * cannot serve (two payloads, a {@code @RdmaHeaders} that is no map) fails the startup naming it.
 */
final class EndpointMethod {

    /** Takes one argument from the message. */
    @FunctionalInterface
    private interface Argument {
        @Nullable Object from(InboundMessage message);
    }

    private final String listener;
    private final String route;
    private final Object bean;
    private final Method method;
    private final List<Argument> arguments;
    private final boolean returnsVoid;

    private EndpointMethod(String listener, String route, Object bean, Method method, List<Argument> arguments) {
        this.listener = listener;
        this.route = route;
        this.bean = bean;
        this.method = method;
        this.arguments = arguments;
        Class<?> reply = replyType(method).toClass();
        this.returnsVoid = reply == void.class || reply == Void.class;
    }

    /**
     * @param invocable the method to call on {@code bean} (on a proxy, its interface's or the proxy's own)
     * @throws IllegalStateException naming the method when a parameter cannot be served
     */
    static EndpointMethod of(String listener, String route, Object bean, Method declared, Method invocable,
            RdmaMessageConverters converters, ConversionService conversion) {
        List<Argument> arguments = new ArrayList<>();
        Parameter payload = null;
        for (Parameter p : declared.getParameters()) {
            if (isPayload(p)) {
                if (payload != null) {
                    throw new IllegalStateException(describe(declared) + " takes two payloads, '" + payload.getName()
                            + "' and '" + p.getName() + "': annotate the headers with @RdmaHeader");
                }
                payload = p;
            }
            arguments.add(argument(declared, p, converters, conversion));
        }
        ReflectionUtils.makeAccessible(invocable);
        return new EndpointMethod(listener, route, bean, invocable, List.copyOf(arguments));
    }

    private static Argument argument(Method method, Parameter p, RdmaMessageConverters converters,
            ConversionService conversion) {
        Class<?> type = p.getType();
        RdmaHeader header = p.getAnnotation(RdmaHeader.class);
        if (header != null) {
            TypeDescriptor target = new TypeDescriptor(MethodParameter.forParameter(p));
            return m -> {
                String value = m.headers().get(header.value());
                if (value == null) {
                    if (header.required()) {
                        throw new IllegalArgumentException("the message has no header '" + header.value() + "', which "
                                + describe(method) + " requires");
                    }
                    return null;
                }
                return conversion.convert(value, TypeDescriptor.valueOf(String.class), target);
            };
        }
        if (p.isAnnotationPresent(RdmaHeaders.class)) {
            if (!Map.class.isAssignableFrom(type)) {
                throw new IllegalStateException(describe(method) + ": @RdmaHeaders '" + p.getName() + "' is a "
                        + type.getSimpleName() + ", not a Map<String, String>");
            }
            return InboundMessage::headers;
        }
        if (type == InboundMessage.class) {
            return m -> m;
        }
        if (type == Message.class) {
            return InboundMessage::message;
        }
        if (type == Session.class) {
            return InboundMessage::session;
        }
        if (type == Connection.class) {
            return m -> m.session().connection();
        }
        Type generic = p.getParameterizedType();
        return m -> converters.fromMessage(m.message(), generic);
    }

    /** Whether {@code p} takes the payload: not a header, not the message or where it came from. */
    static boolean isPayload(Parameter p) {
        Class<?> type = p.getType();
        return !p.isAnnotationPresent(RdmaHeader.class) && !p.isAnnotationPresent(RdmaHeaders.class)
                && type != InboundMessage.class && type != Message.class && type != Session.class
                && type != Connection.class;
    }

    /** Payload types that are bytes or text: no data binding. */
    static boolean isRaw(Class<?> type) {
        return type == byte[].class || type == ByteBuffer.class || type == MemorySegment.class || type == String.class
                || type == Message.class || type.isPrimitive();
    }

    /** What the method replies: its return type, or the value type of a {@code CompletionStage}. */
    static ResolvableType replyType(Method method) {
        ResolvableType returned = ResolvableType.forMethodReturnType(method);
        if (CompletionStage.class.isAssignableFrom(returned.toClass())) {
            return returned.as(CompletionStage.class).getGeneric(0);
        }
        return returned;
    }

    String listener() {
        return listener;
    }

    String route() {
        return route;
    }

    Method method() {
        return method;
    }

    boolean returnsVoid() {
        return returnsVoid;
    }

    /** {@code OrderEndpoint#place}: what errors and logs name. */
    String describe() {
        return describe(method);
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getSimpleName() + "#" + method.getName();
    }

    /** The arguments for {@code message}; a conversion failure is the caller's (the requester's error reply). */
    @Nullable Object[] arguments(InboundMessage message) {
        @Nullable Object[] args = new Object[arguments.size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = arguments.get(i).from(message);
        }
        return args;
    }

    /**
     * Calls the method.
     *
     * @return what it returned: a reply, a {@code CompletionStage} of one, or null
     * @throws Throwable what the method threw, unwrapped
     */
    @Nullable Object invoke(@Nullable Object[] args) throws Throwable {
        try {
            return method.invoke(bean, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The reply to send for {@code value}: empty for null, a Message as it is, else converted. */
    static Message reply(@Nullable Object value, RdmaMessageConverters converters) {
        return value == null ? Message.empty() : converters.toMessage(value);
    }

    /** The arguments as they outlive the call: views of the receive buffer become copies. */
    static List<@Nullable Object> safeCopies(@Nullable Object[] args) {
        return Arrays.stream(args).map(a -> switch (a) {
            case MemorySegment s -> s.toArray(ValueLayout.JAVA_BYTE);
            case ByteBuffer b -> {
                byte[] copy = new byte[b.remaining()];
                b.duplicate().get(copy);
                yield copy;
            }
            case InboundMessage m -> Message.of(m.toByteArray()).withHeaders(m.headers());
            case Message m -> Message.of(m.toByteArray()).withHeaders(m.headers());
            case null -> null;
            default -> a;
        }).toList();
    }

    @Override
    public String toString() {
        return describe() + " for listener '" + listener + "'" + (route.isEmpty() ? "" : " route '" + route + "'");
    }
}
