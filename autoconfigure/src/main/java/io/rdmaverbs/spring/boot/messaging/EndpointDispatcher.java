package io.rdmaverbs.spring.boot.messaging;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import io.micrometer.observation.Observation;
import io.rdmaverbs.spring.boot.messaging.converter.RdmaMessageConverters;
import io.rdmaverbs.spring.boot.messaging.observation.DefaultRdmaReceiverObservationConvention;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaMessagingObservation;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaMessagingObservation.Outcome;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaReceiverContext;
import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.connection.Futures;
import io.rdmaverbs.verbs.connection.InboundMessage;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.MessageHandler;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The handler of a listener whose messages go to endpoints: it picks the method by the message's route,
 * observes the call ({@code rdma.messaging.handle}, in the sender's trace), and answers a request with
 * what the method returned or with an error reply naming the endpoint and the cause. A one-way message's
 * failure goes to the {@link RdmaErrorHandler}; a message no endpoint takes is answered with a
 * {@value RdmaMessageHeaders#NO_ENDPOINT} error (a request) or is the error handler's (one-way).
 */
final class EndpointDispatcher implements MessageHandler {

    private static final Log logger = LogFactory.getLog(EndpointDispatcher.class.getPackageName());

    private final String listener;
    private final Map<String, EndpointMethod> routes;
    private final EndpointSupport messaging;

    EndpointDispatcher(String listener, Map<String, EndpointMethod> routes, EndpointSupport messaging) {
        this.listener = listener;
        this.routes = Map.copyOf(routes);
        this.messaging = messaging;
    }

    @Override
    public void onMessage(InboundMessage message) {
        String route = message.headers().getOrDefault(RdmaMessageHeaders.ROUTE, "");
        RdmaReceiverContext context = new RdmaReceiverContext(listener, route, message.isRequest(), message.headers(),
                message.message().length());
        Observation observation = RdmaMessagingObservation.HANDLE.observation(messaging.convention(),
                DefaultRdmaReceiverObservationConvention.INSTANCE, () -> context, messaging.registry()).start();
        EndpointMethod endpoint = routes.get(route);
        boolean async = false;
        try (Observation.Scope scope = observation.openScope()) {
            if (endpoint == null) {
                context.outcome(Outcome.NO_ENDPOINT);
                NoEndpointException none = new NoEndpointException(listener, route, routes.keySet());
                observation.error(none);
                failed(message, route, null, none, copyOf(message));
                return;
            }
            async = call(endpoint, message, context, observation);
        } finally {
            if (!async) {
                observation.stop();
            }
        }
    }

    /**
     * Calls the endpoint and answers; for a {@code CompletionStage} the answer (and the observation's stop)
     * comes when it completes.
     *
     * @return whether the answer is asynchronous
     */
    private boolean call(EndpointMethod endpoint, InboundMessage message, RdmaReceiverContext context,
            Observation observation) {
        @Nullable Object[] args = null;
        Object result;
        try {
            args = endpoint.arguments(message);
            result = endpoint.invoke(args);
        } catch (Throwable e) {
            context.outcome(Outcome.ERROR);
            observation.error(e);
            Message copy = copyOf(message);
            failed(message, endpoint.route(), endpoint, e, copy);
            told(endpoint, message.isRequest(), copy, args, null, e);
            if (e instanceof Error error && !(e instanceof AssertionError)) {
                throw error;
            }
            return false;
        }
        if (result instanceof CompletionStage<?> stage) {
            // The payload is gone once this returns: keep what the answer and the listeners need.
            Message copy = message.isRequest() && messaging.invocations().isEmpty() ? null : copyOf(message);
            List<@Nullable Object> safe = EndpointMethod.safeCopies(args);
            stage.whenComplete((value, failure) -> {
                Throwable cause = failure == null ? null : Futures.cause(failure);
                try {
                    if (cause != null) {
                        context.outcome(Outcome.ERROR);
                        observation.error(cause);
                        failed(message, endpoint.route(), endpoint, cause, copy);
                    } else {
                        answer(message, endpoint, value, context, observation);
                    }
                    toldCopied(endpoint, message.isRequest(), copy, safe, value, cause);
                } finally {
                    observation.stop();
                }
            });
            return true;
        }
        answer(message, endpoint, result, context, observation);
        if (!messaging.invocations().isEmpty()) {
            told(endpoint, message.isRequest(), copyOf(message), args, result, null);
        }
        if (!message.isRequest() && result != null) {
            logger.debug("RDMA endpoint " + endpoint + " returned a value for a one-way message: dropped");
        }
        return false;
    }

    /** A request's reply; a value it cannot convert is an error reply. */
    private void answer(InboundMessage message, EndpointMethod endpoint, @Nullable Object value,
            RdmaReceiverContext context, Observation observation) {
        if (!message.isRequest()) {
            return;
        }
        Message reply;
        try {
            reply = EndpointMethod.reply(value, messaging.converters());
        } catch (RuntimeException e) {
            context.outcome(Outcome.ERROR);
            observation.error(e);
            replyError(message, endpoint.route(), endpoint, e);
            return;
        }
        context.setResponse(reply);
        try {
            message.reply(reply);
        } catch (ResourceClosedException ended) {
            // The session ended meanwhile: the requester learns it from its own end.
        }
    }

    /** An endpoint (or the lack of one) failed on {@code message}: an error reply, or the error handler's. */
    private void failed(InboundMessage message, String route, @Nullable EndpointMethod endpoint, Throwable cause,
            @Nullable Message copy) {
        if (message.isRequest()) {
            replyError(message, route, endpoint, cause);
            return;
        }
        Message failedMessage = copy != null ? copy : Message.empty();
        messaging.errorHandler().handle(new RdmaFailedMessage(listener, route,
                endpoint == null ? null : endpoint.describe(), failedMessage, cause));
    }

    private void replyError(InboundMessage message, String route, @Nullable EndpointMethod endpoint, Throwable cause) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(RdmaMessageHeaders.ENDPOINT, listener + "/" + route);
        if (endpoint != null) {
            headers.put(RdmaMessageHeaders.ENDPOINT_METHOD, endpoint.describe());
        }
        String type = cause instanceof NoEndpointException ? RdmaMessageHeaders.NO_ENDPOINT : cause.getClass().getName();
        logger.debug("RDMA endpoint " + (endpoint != null ? endpoint : listener + "/" + route)
                + " answers a request with an error", cause);
        try {
            message.replyError(type, String.valueOf(cause.getMessage()), headers);
        } catch (IllegalStateException ended) {
            // Ended (ResourceClosedException), or answered already (the endpoint replied itself, then threw).
        }
    }

    private void told(EndpointMethod endpoint, boolean request, Message copy, @Nullable Object @Nullable [] args,
            @Nullable Object result, @Nullable Throwable error) {
        if (messaging.invocations().isEmpty()) {
            return;
        }
        toldCopied(endpoint, request, copy, args == null ? List.of() : EndpointMethod.safeCopies(args), result, error);
    }

    private void toldCopied(EndpointMethod endpoint, boolean request, @Nullable Message copy,
            List<@Nullable Object> args, @Nullable Object result, @Nullable Throwable error) {
        if (messaging.invocations().isEmpty()) {
            return;
        }
        EndpointInvocation invocation = new EndpointInvocation(listener, endpoint.route(), endpoint.method(), request,
                copy == null ? Message.empty() : copy, args, result, error);
        for (EndpointInvocationListener l : messaging.invocations()) {
            try {
                l.invoked(invocation);
            } catch (RuntimeException e) {
                logger.warn("An endpoint invocation listener failed", e);
            }
        }
    }

    private static Message copyOf(InboundMessage message) {
        return Message.of(message.toByteArray()).withHeaders(message.headers());
    }

    @Override
    public String toString() {
        return "endpoints of listener '" + listener + "': " + routes.values();
    }
}
