package io.rdmaverbs.spring.boot.messaging;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;
import io.rdmaverbs.spring.boot.connections.InvalidConnectionSettingException;
import io.rdmaverbs.spring.boot.connections.ListenerHandlers;
import io.rdmaverbs.spring.boot.messaging.converter.RdmaMessageConverters;
import io.rdmaverbs.verbs.connection.MessageHandler;

import org.springframework.core.convert.ConversionService;

/**
 * The {@link RdmaMessageMapping} methods of an application, by listener and route, registered by the
 * {@link RdmaEndpointBeanPostProcessor} as the endpoint beans are created; each listener that has some is
 * handed an {@link EndpointDispatcher} when it starts ({@link ListenerHandlers}).
 */
public final class RdmaEndpointRegistry implements ListenerHandlers {

    private final Set<String> declaredListeners;
    private final RdmaMessageConverters converters;
    private final ConversionService conversion;
    private final Supplier<EndpointSupport> messaging;
    private final Map<String, Map<String, EndpointMethod>> endpoints = new LinkedHashMap<>();

    /**
     * @param declaredListeners the keys under {@code rdma.verbs.connections.listeners}
     * @param messaging what the dispatchers share, asked for when the first listener starts
     */
    public RdmaEndpointRegistry(Set<String> declaredListeners, RdmaMessageConverters converters,
            ConversionService conversion, Supplier<EndpointSupport> messaging) {
        this.declaredListeners = Set.copyOf(declaredListeners);
        this.converters = converters;
        this.conversion = conversion;
        this.messaging = messaging;
    }

    /**
     * Registers the method for each of its routes.
     *
     * @throws InvalidConnectionSettingException when the listener is not declared
     * @throws IllegalStateException when a route of the listener is taken already, or a parameter cannot be served
     */
    synchronized void register(String listener, List<String> routes, Object bean, Method declared, Method invocable) {
        if (!declaredListeners.contains(listener)) {
            throw new InvalidConnectionSettingException(ConnectionDeclarations.listenerPath(listener),
                    "no listener is declared under it, and " + EndpointMethod.describe(declared)
                            + " is bound to it (@RdmaEndpoint(\"" + listener + "\"))",
                    "Declare the listener (its address or device), or bind the endpoint to a declared listener"
                            + (declaredListeners.isEmpty() ? "" : ": one of " + new TreeSet<>(declaredListeners)));
        }
        Map<String, EndpointMethod> byRoute = endpoints.computeIfAbsent(listener, l -> new LinkedHashMap<>());
        for (String route : routes.isEmpty() ? List.of("") : routes) {
            EndpointMethod taken = byRoute.get(route);
            if (taken != null) {
                throw new IllegalStateException("RDMA listener '" + listener + "': " + (route.isEmpty()
                        ? "messages without a route" : "route '" + route + "'") + " is mapped twice, by "
                        + taken.describe() + " and " + EndpointMethod.describe(declared));
            }
            byRoute.put(route, EndpointMethod.of(listener, route, bean, declared, invocable, converters, conversion));
        }
    }

    @Override
    public synchronized Optional<MessageHandler> handlerFor(String listener) {
        Map<String, EndpointMethod> byRoute = endpoints.get(listener);
        return byRoute == null ? Optional.empty()
                : Optional.of(new EndpointDispatcher(listener, byRoute, messaging.get()));
    }

    /** The routes mapped for {@code listener} ("" for messages without a route). */
    public synchronized Set<String> routes(String listener) {
        return Set.copyOf(endpoints.getOrDefault(listener, Map.of()).keySet());
    }

    /** The listeners that have endpoints. */
    public synchronized Set<String> listeners() {
        return Set.copyOf(endpoints.keySet());
    }
}
