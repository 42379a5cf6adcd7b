package io.rdmaverbs.spring.boot.connections;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rdmaverbs.spring.boot.resilience.AttemptGuards;
import io.rdmaverbs.spring.boot.resilience.PeerCircuitBreakers;
import io.rdmaverbs.spring.boot.resilience.PeerRetries;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.connection.ConnectSpec;
import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.MessageHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Creates the listener and peer beans {@link ConnectionsRegistrar} defines, by name, from their
 * declarations: the factory bean of those definitions. It checks each declaration before anything is
 * created (addresses, queue sizes; a listener's handler when it starts, once every endpoint bean exists)
 * and keeps what it created, in creation order, for the {@link RdmaConnectionsLifecycle}, health and
 * metrics.
 */
public final class RdmaConnectionsFactory implements DisposableBean {

    /** The name of this factory's bean, which the registered definitions refer to. */
    public static final String BEAN_NAME = "rdmaConnectionsFactory";

    private final Verbs verbs;
    private final Connections connections;
    private final Map<String, ConnectionDeclarations.Listener> listenerDeclarations;
    private final Map<String, ConnectionDeclarations.Peer> peerDeclarations;
    private final ListableBeanFactory beanFactory;
    private final ApplicationEventPublisher events;
    private final ConnectionObserver observer;
    private final PeerRetries retries;
    private final AttemptGuards guards;
    private final List<RdmaListener> listeners = new CopyOnWriteArrayList<>();
    private final List<RdmaPeer> peers = new CopyOnWriteArrayList<>();

    /**
     * @param guards the circuit breakers of the peers ({@link PeerCircuitBreakers}), or {@link AttemptGuards#NONE}
     */
    public RdmaConnectionsFactory(Verbs verbs, Connections connections,
            Map<String, ConnectionDeclarations.Listener> listeners, Map<String, ConnectionDeclarations.Peer> peers,
            ListableBeanFactory beanFactory, ApplicationEventPublisher events, ConnectionObserver observer,
            PeerRetries retries, AttemptGuards guards) {
        this.verbs = verbs;
        this.connections = connections;
        this.listenerDeclarations = listeners;
        this.peerDeclarations = peers;
        this.beanFactory = beanFactory;
        this.events = events;
        this.observer = observer;
        this.retries = retries;
        this.guards = guards;
    }

    /** The listener declared under {@code name}, not listening yet. */
    public RdmaListener listener(String name) {
        String path = ConnectionDeclarations.listenerPath(name);
        ConnectionDeclarations.Listener declared = declared(listenerDeclarations, name, path);
        ConnectionSpecs.check(path + ".connection", declared.connection());
        requireNotNegative(path + ".heartbeat-interval", declared.heartbeatInterval());
        InetAddress address;
        if (declared.address() != null && hasText(declared.device())) {
            throw new InvalidConnectionSettingException(path, "both address and device are set",
                    "Set only one: the address to listen on, or the RDMA device whose address to listen on");
        } else if (declared.address() != null) {
            address = IpLiterals.parse(path + ".address", declared.address());
        } else if (hasText(declared.device())) {
            address = DeviceAddresses.of(verbs.provider(), declared.device(), path + ".device");
        } else {
            throw new InvalidConnectionSettingException(path, "neither address nor device is set",
                    "Set " + path + ".address to an IP literal of this host, or " + path
                            + ".device to the RDMA device whose address to listen on");
        }
        RdmaListener listener = new RdmaListener(name, new InetSocketAddress(address, declared.port()), declared,
                connections, () -> handler(name, path, declared.handler()), observer, events);
        listeners.add(listener);
        return listener;
    }

    /** The peer declared under {@code name}, not connecting yet. */
    public RdmaPeer peer(String name) {
        String path = ConnectionDeclarations.peerPath(name);
        ConnectionDeclarations.Peer declared = declared(peerDeclarations, name, path);
        if (declared.address() == null) {
            throw new InvalidConnectionSettingException(path + ".address", "no address is set",
                    "Set it to the IP literal of the remote listener, e.g. fe80::1%eth0 or 127.0.0.1");
        }
        ConnectionSpecs.check(path + ".connection", declared.connection());
        requireNotNegative(path + ".heartbeat-interval", declared.heartbeatInterval());
        InetSocketAddress remote = new InetSocketAddress(IpLiterals.parse(path + ".address", declared.address()),
                declared.port());
        RdmaPeer peer = new RdmaPeer(name, remote, declared, this::connect, retries.forPeer(name, declared.reconnect()),
                guards.forPeer(name, declared.circuitBreaker()), observer, events);
        peers.add(peer);
        return peer;
    }

    /**
     * One connect attempt: address and route resolution each within {@code resolve-timeout}, the
     * handshake within {@code connect-timeout}. An attempt given up (its time is over, or the peer is
     * stopping) closes the connection should it still come.
     */
    private Session connect(RdmaPeer peer) throws Exception {
        ConnectionDeclarations.Peer declared = peer.declaration();
        ConnectSpec spec = ConnectSpec.to(peer.remoteAddress()).timeout(declared.resolveTimeout())
                .connection(ConnectionSpecs.of(declared.connection()))
                .session(ConnectionSpecs.session(declared.connection(), null, declared.heartbeatInterval(),
                        declared.requestTimeout()));
        Duration bound = declared.resolveTimeout().multipliedBy(2).plus(declared.connectTimeout());
        CompletableFuture<Connection> attempt = connections.connectAsync(spec);
        Connection connection;
        try {
            connection = attempt.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException | InterruptedException e) {
            attempt.thenAccept(Connection::close);
            if (e instanceof TimeoutException) {
                throw new TimeoutException("no connection to " + RdmaPeer.format(peer.remoteAddress()) + " within "
                        + bound + " (resolve-timeout twice and connect-timeout)");
            }
            throw e;
        }
        return connection.session();
    }

    /** The listeners created so far, in creation order. */
    public List<RdmaListener> listeners() {
        return List.copyOf(listeners);
    }

    /** The peers created so far, in creation order. */
    public List<RdmaPeer> peers() {
        return List.copyOf(peers);
    }

    /** The connection manager every listener and peer uses: one event channel and its event loop. */
    public Connections connections() {
        return connections;
    }

    /**
     * Closes the connection manager when the context is destroyed without its lifecycle having stopped it: a
     * startup that failed while the listener and peer beans were created (an address that is no IP literal,
     * a device that does not exist) would otherwise leave its event loop thread running. After the
     * lifecycle's stop this returns the report of that close.
     */
    @Override
    public void destroy() {
        connections.close(Duration.ZERO);
    }

    /**
     * The handler of the listener {@code listener}: the bean its {@code handler} property names, else the
     * endpoints bound to it ({@link ListenerHandlers}), else the application's only RdmaMessageHandler.
     */
    private MessageHandler handler(String listener, String path, @Nullable String name) {
        List<MessageHandler> endpoints = beanFactory.getBeanProvider(ListenerHandlers.class).orderedStream()
                .flatMap(h -> h.handlerFor(listener).stream()).toList();
        if (name != null && !endpoints.isEmpty()) {
            throw new InvalidConnectionSettingException(path + ".handler", "it names the bean '" + name
                    + "', and endpoints (@RdmaEndpoint(\"" + listener + "\")) are bound to the listener too",
                    "Remove the handler property to use the endpoints, or bind the endpoints to another listener");
        }
        if (name == null && !endpoints.isEmpty()) {
            return endpoints.getFirst();
        }
        if (name != null) {
            if (!beanFactory.containsBean(name)) {
                throw new InvalidConnectionSettingException(path + ".handler", "there is no bean named '" + name + "'",
                        "Name an RdmaMessageHandler bean of the application");
            }
            Object bean = beanFactory.getBean(name);
            if (!(bean instanceof RdmaMessageHandler handler)) {
                throw new InvalidConnectionSettingException(path + ".handler", "the bean '" + name + "' is a "
                        + bean.getClass().getName() + ", not an RdmaMessageHandler", "Name an RdmaMessageHandler bean");
            }
            return handler;
        }
        String[] candidates = beanFactory.getBeanNamesForType(RdmaMessageHandler.class);
        if (candidates.length != 1) {
            throw new InvalidConnectionSettingException(path + ".handler", candidates.length == 0
                    ? "the application has no RdmaMessageHandler bean to hand the connections' messages to"
                    : "it is not set, and the application has " + candidates.length + " RdmaMessageHandler beans "
                            + List.of(candidates),
                    "Bind endpoints to it with @RdmaEndpoint(\"" + listener + "\"), or declare an RdmaMessageHandler "
                            + "bean, and name it in " + path + ".handler when there are several");
        }
        return beanFactory.getBean(candidates[0], RdmaMessageHandler.class);
    }

    /** A blank device is no device: a test may blank the application's to listen on an address instead. */
    private static boolean hasText(@Nullable String value) {
        return value != null && !value.isBlank();
    }

    private static void requireNotNegative(String property, Duration interval) {
        if (interval.isNegative()) {
            throw new InvalidConnectionSettingException(property, "it is negative",
                    "Set a positive interval, or 0 to send no heartbeat");
        }
    }

    private static <T> T declared(Map<String, T> declarations, String name, String path) {
        T declared = declarations.get(name);
        if (declared == null) {
            throw new IllegalStateException(path + " is not declared (the application was processed ahead of time "
                    + "with other connections than it runs with)");
        }
        return declared;
    }
}
