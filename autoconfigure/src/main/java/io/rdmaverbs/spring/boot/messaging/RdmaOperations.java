package io.rdmaverbs.spring.boot.messaging;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.verbs.connection.Message;

import org.jspecify.annotations.Nullable;

/**
 * Sends and requests on the peers declared under {@code rdma.verbs.connections.peers}, by name, as
 * {@code RabbitOperations} does on exchanges: {@code send}/{@code sendAndReceive} take session messages,
 * {@code convertAndSend}/{@code convertSendAndReceive} objects a converter turns into one. A {@code route}
 * ({@value RdmaMessageHeaders#ROUTE} header) picks the remote listener's {@link RdmaMessageMapping} method;
 * null: the one for messages without a route.
 *
 * <p>A request without a timeout waits the peer's {@code request-timeout}. Failures: the peer is not
 * connected or is lost first ({@code RdmaPeerUnavailableException}), no reply in time
 * ({@link RdmaReplyTimeoutException}), the remote endpoint failed ({@link RdmaRemoteEndpointException}), a
 * payload did not convert ({@code RdmaMessageConversionException}). The {@code ...Async} variants complete
 * with the same exceptions, on a virtual thread, never on the connection's completion thread.
 */
public interface RdmaOperations {

    /** The peer declared under {@code name}. @throws IllegalArgumentException when there is none */
    RdmaPeer peer(String name);

    // one-way

    CompletableFuture<Void> sendAsync(String peer, @Nullable String route, Message message);

    default void send(String peer, Message message) {
        send(peer, null, message);
    }

    void send(String peer, @Nullable String route, Message message);

    CompletableFuture<Void> convertAndSendAsync(String peer, @Nullable String route, Object payload);

    default void convertAndSend(String peer, Object payload) {
        convertAndSend(peer, null, payload);
    }

    void convertAndSend(String peer, @Nullable String route, Object payload);

    // request and reply

    CompletableFuture<Message> sendAndReceiveAsync(String peer, @Nullable String route, Message request,
            @Nullable Duration timeout);

    default CompletableFuture<Message> sendAndReceiveAsync(String peer, @Nullable String route, Message request) {
        return sendAndReceiveAsync(peer, route, request, null);
    }

    default Message sendAndReceive(String peer, Message request) {
        return sendAndReceive(peer, null, request);
    }

    default Message sendAndReceive(String peer, @Nullable String route, Message request) {
        return sendAndReceive(peer, route, request, null);
    }

    Message sendAndReceive(String peer, @Nullable String route, Message request, @Nullable Duration timeout);

    <T> CompletableFuture<T> convertSendAndReceiveAsync(String peer, @Nullable String route, Object payload,
            Class<T> replyType, @Nullable Duration timeout);

    default <T> CompletableFuture<T> convertSendAndReceiveAsync(String peer, @Nullable String route, Object payload,
            Class<T> replyType) {
        return convertSendAndReceiveAsync(peer, route, payload, replyType, null);
    }

    default <T> T convertSendAndReceive(String peer, Object payload, Class<T> replyType) {
        return convertSendAndReceive(peer, null, payload, replyType);
    }

    default <T> T convertSendAndReceive(String peer, @Nullable String route, Object payload, Class<T> replyType) {
        return convertSendAndReceive(peer, route, payload, replyType, null);
    }

    <T> T convertSendAndReceive(String peer, @Nullable String route, Object payload, Class<T> replyType,
            @Nullable Duration timeout);
}
