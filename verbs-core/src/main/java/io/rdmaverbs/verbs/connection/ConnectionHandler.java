package io.rdmaverbs.verbs.connection;

/**
 * Answers a connection request on a {@link ConnectionListener}: {@link ConnectionRequest#accept()} or
 * {@link ConnectionRequest#reject(byte[])}. Runs off the event loop, one request at a time per
 * connection, so a slow handler delays only its own request. A handler that throws has its request
 * rejected; one that does neither leaves it pending, which holds the listener (a strict close refuses).
 */
@FunctionalInterface
public interface ConnectionHandler {

    void onRequest(ConnectionRequest request) throws Exception;
}
