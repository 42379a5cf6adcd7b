package io.rdmaverbs.verbs.connection;

/**
 * Takes the messages a {@link Session} receives: one-way messages and requests, in the order they arrived
 * on the connection (the session's handler executor runs them one at a time unless told otherwise). An
 * exception thrown for a request is the requester's {@link RemoteErrorException}; for a one-way message it
 * is logged.
 */
@FunctionalInterface
public interface MessageHandler {

    void onMessage(InboundMessage message) throws Exception;
}
