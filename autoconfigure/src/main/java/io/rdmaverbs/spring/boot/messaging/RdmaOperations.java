package io.rdmaverbs.spring.boot.messaging;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.RemoteKey;

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
 *
 * <p>{@link #remoteRegion} and {@link #requestRemoteRegion} give RDMA READ, WRITE and atomics on memory the
 * peer exported, through verbs-core's {@link RemoteRegion} on the peer's current session.
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

    // one-sided RDMA on memory the peer exported

    /**
     * Opens a key the peer exported ({@code Session.export} on its side, the key's bytes sent to this side in
     * any message) on the peer's current session: a handle for RDMA READ, WRITE, compare-and-swap and
     * fetch-and-add on that memory, each a future, with bounds, alignment and access checked before posting.
     * The handle belongs to that session. It is closed, and every call on it throws
     * {@code ResourceClosedException} saying why, when the peer revokes the export or closes its region, and
     * when the connection is lost: after a reconnect the old key does not open, the peer must export again.
     * Close the handle ({@code close()}) when done.
     *
     * @throws IllegalArgumentException when no such peer is declared, for bytes that are no remote key, a key
     *     of another session (one from before a reconnect) or a revoked one
     * @throws io.rdmaverbs.spring.boot.connections.RdmaPeerUnavailableException when it is not connected
     */
    default RemoteRegion remoteRegion(String peer, byte[] key) {
        return remoteRegion(peer, RemoteKey.unpack(key));
    }

    /** {@link #remoteRegion(String, byte[])} of a key a converter read ({@code RemoteKey.class} as reply type). */
    RemoteRegion remoteRegion(String peer, RemoteKey key);

    /**
     * Requests a key from the peer's endpoint on {@code route} and opens it ({@link #remoteRegion(String,
     * RemoteKey)}): the endpoint exports memory and returns the {@link RemoteKey} (or its bytes). The future
     * fails as {@link #convertSendAndReceiveAsync} does, or with the refusal of a key that does not open.
     */
    CompletableFuture<RemoteRegion> requestRemoteRegionAsync(String peer, @Nullable String route, Object payload,
            @Nullable Duration timeout);

    /** {@link #requestRemoteRegionAsync}, waiting the peer's {@code request-timeout} for the key. */
    default RemoteRegion requestRemoteRegion(String peer, @Nullable String route, Object payload) {
        return requestRemoteRegion(peer, route, payload, null);
    }

    /** {@link #requestRemoteRegionAsync}, waiting {@code timeout} (null: the peer's) for the key. */
    default RemoteRegion requestRemoteRegion(String peer, @Nullable String route, Object payload,
            @Nullable Duration timeout) {
        return remoteRegion(peer, convertSendAndReceive(peer, route, payload, RemoteKey.class, timeout));
    }
}
