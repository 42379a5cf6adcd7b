package io.rdmaverbs.spring.boot.connections;

import java.nio.ByteBuffer;

/**
 * Receives the messages of the connections a listener accepts: declare one as a bean and name it in
 * {@code rdma.verbs.connections.listeners.<name>.handler} (or let it be the only one).
 *
 * <pre>{@code
 * @Bean
 * RdmaMessageHandler echo() {
 *     return (session, message) -> session.send(message);
 * }
 * }</pre>
 *
 * <p>Messages of one connection arrive one at a time, in order, on a thread of that connection: a slow
 * handler delays only its own connection. The buffer is the registered receive buffer itself, read-only
 * and valid only during the call (it is posted again for the next message once the handler returns):
 * copy what must outlive it.
 */
@FunctionalInterface
public interface RdmaMessageHandler {

    /**
     * @param session the connection the message came on, to reply on
     * @param message the message, from its position to its limit
     */
    void onMessage(RdmaSession session, ByteBuffer message) throws Exception;
}
