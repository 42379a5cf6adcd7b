package io.rdmaverbs.verbs.connection;

/**
 * Told of each state change of a {@link Connection}; called off the event loop, serially for one
 * connection, in the order of the changes.
 */
@FunctionalInterface
public interface ConnectionStateListener {

    void stateChanged(Connection connection, ConnectionState state);
}
