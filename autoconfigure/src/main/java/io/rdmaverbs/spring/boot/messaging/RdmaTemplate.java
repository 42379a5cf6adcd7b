package io.rdmaverbs.spring.boot.messaging;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.spring.boot.connections.RdmaPeerUnavailableException;
import io.rdmaverbs.spring.boot.messaging.converter.RdmaMessageConverters;
import io.rdmaverbs.spring.boot.messaging.observation.DefaultRdmaSenderObservationConvention;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaMessagingObservation;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaMessagingObservation.Outcome;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaSenderContext;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaSenderObservationConvention;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.connection.Futures;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.RemoteErrorException;
import io.rdmaverbs.verbs.connection.RemoteKey;

import org.jspecify.annotations.Nullable;

/**
 * The {@link RdmaOperations} of an application's declared peers: each call goes on the peer's current
 * session ({@code RdmaPeer.sendAsync}, {@code requestAsync}), observed as {@code rdma.messaging.send} or
 * {@code rdma.messaging.request}, with the trace context added to the message's headers. Thread-safe; one
 * per application, built by the auto-configuration.
 */
public final class RdmaTemplate implements RdmaOperations {

    /** Where futures handed to the caller complete: off the completion loop, whose thread must never block. */
    private static final Executor CALLBACKS = task -> Thread.ofVirtual().name("rdma-template").start(task);

    private final Supplier<List<RdmaPeer>> peers;
    private final RdmaMessageConverters converters;
    private final ObservationRegistry registry;
    private final @Nullable RdmaSenderObservationConvention convention;

    /**
     * @param peers the declared peers ({@code RdmaConnectionsFactory::peers})
     * @param convention the application's, or null for {@link DefaultRdmaSenderObservationConvention}
     */
    public RdmaTemplate(Supplier<List<RdmaPeer>> peers, RdmaMessageConverters converters,
            ObservationRegistry registry, @Nullable RdmaSenderObservationConvention convention) {
        this.peers = peers;
        this.converters = converters;
        this.registry = registry;
        this.convention = convention;
    }

    /** The converters {@code convert...} methods use. */
    public RdmaMessageConverters converters() {
        return converters;
    }

    @Override
    public RdmaPeer peer(String name) {
        List<RdmaPeer> all = peers.get();
        return all.stream().filter(p -> p.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no RDMA peer '" + name + "' is declared under "
                        + "rdma.verbs.connections.peers" + (all.isEmpty() ? ""
                                : " (declared: " + String.join(", ", all.stream().map(RdmaPeer::name).toList()) + ")")));
    }

    // ---- one-way --------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Void> sendAsync(String peer, @Nullable String route, Message message) {
        RdmaPeer target = peer(peer);
        RdmaSenderContext context = new RdmaSenderContext(peer, route, false, message.length());
        return observed(RdmaMessagingObservation.SEND, DefaultRdmaSenderObservationConvention.SEND, context, null,
                target::sendAsync, message);
    }

    @Override
    public void send(String peer, @Nullable String route, Message message) {
        await(sendAsync(peer, route, message), peer(peer).requestTimeout(), peer, route);
    }

    @Override
    public CompletableFuture<Void> convertAndSendAsync(String peer, @Nullable String route, Object payload) {
        return sendAsync(peer, route, converters.toMessage(payload));
    }

    @Override
    public void convertAndSend(String peer, @Nullable String route, Object payload) {
        send(peer, route, converters.toMessage(payload));
    }

    // ---- request and reply ----------------------------------------------------------------------

    @Override
    public CompletableFuture<Message> sendAndReceiveAsync(String peer, @Nullable String route, Message request,
            @Nullable Duration timeout) {
        RdmaPeer target = peer(peer);
        Duration wait = timeout != null ? timeout : target.requestTimeout();
        RdmaSenderContext context = new RdmaSenderContext(peer, route, true, request.length());
        return observed(RdmaMessagingObservation.REQUEST, DefaultRdmaSenderObservationConvention.REQUEST, context,
                wait, m -> target.requestAsync(m, wait), request);
    }

    @Override
    public Message sendAndReceive(String peer, @Nullable String route, Message request, @Nullable Duration timeout) {
        Duration wait = timeout != null ? timeout : peer(peer).requestTimeout();
        // The session times the request out; the extra second only bounds a hand-off that never comes.
        return await(sendAndReceiveAsync(peer, route, request, wait), wait.plusSeconds(1), peer, route);
    }

    @Override
    public <T> CompletableFuture<T> convertSendAndReceiveAsync(String peer, @Nullable String route, Object payload,
            Class<T> replyType, @Nullable Duration timeout) {
        Message request;
        try {
            request = converters.toMessage(payload);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return sendAndReceiveAsync(peer, route, request, timeout).thenApply(m -> converters.fromMessage(m, replyType));
    }

    @Override
    public <T> T convertSendAndReceive(String peer, @Nullable String route, Object payload, Class<T> replyType,
            @Nullable Duration timeout) {
        return converters.fromMessage(sendAndReceive(peer, route, converters.toMessage(payload), timeout), replyType);
    }

    // ---- one-sided RDMA -------------------------------------------------------------------------

    @Override
    public RemoteRegion remoteRegion(String peer, RemoteKey key) {
        return peer(peer).remoteRegion(key);
    }

    @Override
    public CompletableFuture<RemoteRegion> requestRemoteRegionAsync(String peer, @Nullable String route, Object payload,
            @Nullable Duration timeout) {
        // Opened when the reply has come, on the peer's session then: the one the key was exported on, unless
        // the connection was lost meanwhile, which the open refuses (the peer unavailable, or a key of
        // another session).
        return convertSendAndReceiveAsync(peer, route, payload, RemoteKey.class, timeout)
                .thenApply(key -> remoteRegion(peer, key));
    }

    // ---- the parts ------------------------------------------------------------------------------

    /**
     * Observes {@code call} of {@code message} (its route and the observation's headers added) until its future
     * completes, with the session's exceptions translated; the caller's future completes off the loop thread.
     */
    private <T> CompletableFuture<T> observed(RdmaMessagingObservation documentation,
            DefaultRdmaSenderObservationConvention defaults, RdmaSenderContext context, @Nullable Duration timeout,
            Function<Message, CompletableFuture<T>> call, Message message) {
        Observation observation = documentation.observation(convention, defaults, () -> context, registry).start();
        CompletableFuture<T> sent;
        try {
            sent = call.apply(outgoing(message, context));
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handleAsync((value, e) -> {
            Throwable failure = e == null ? null : translate(context.peer(), context.route(), timeout, e);
            if (value instanceof Message reply) {
                context.setResponse(reply);
            }
            finish(observation, context, failure);
            if (failure != null) {
                throw new CompletionException(failure);
            }
            return value;
        }, CALLBACKS);
    }

    /** The message with its route and what the observation's handlers put in the carrier (the trace context). */
    private static Message outgoing(Message message, RdmaSenderContext context) {
        String route = context.route();
        Message m = route.isEmpty() ? message : message.withHeader(RdmaMessageHeaders.ROUTE, route);
        return context.headers().isEmpty() ? m : m.withHeaders(context.headers());
    }

    private static void finish(Observation observation, RdmaSenderContext context, @Nullable Throwable failure) {
        if (failure != null) {
            context.outcome(switch (failure) {
                case RdmaRemoteEndpointException r -> Outcome.REMOTE_ERROR;
                case RdmaReplyTimeoutException t -> Outcome.TIMEOUT;
                case RdmaPeerUnavailableException u -> Outcome.UNAVAILABLE;
                default -> Outcome.ERROR;
            });
            observation.error(failure);
        }
        observation.stop();
    }

    /** The session's exceptions as the template's. */
    private static Throwable translate(String peer, String route, @Nullable Duration timeout, Throwable e) {
        Throwable cause = Futures.cause(e);
        return switch (cause) {
            case RemoteErrorException remote -> new RdmaRemoteEndpointException(peer, route, remote);
            case TimeoutException t when timeout != null -> new RdmaReplyTimeoutException(peer, route, timeout, t);
            default -> cause;
        };
    }

    private static <T> T await(CompletableFuture<T> future, Duration bound, String peer, @Nullable String route) {
        try {
            return future.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(false);
            throw new RdmaMessagingException("RDMA peer '" + peer + "': interrupted while waiting", e);
        } catch (TimeoutException e) {
            throw new RdmaMessagingException("RDMA peer '" + peer + "': "
                    + (route == null ? "the message" : "route '" + route + "'") + " was not sent within "
                    + bound.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            throw Futures.rethrow(e, cause -> new RdmaMessagingException("RDMA peer '" + peer + "': " + cause, cause));
        }
    }
}
