package io.rdmaverbs.spring.boot.connections;

import io.rdmaverbs.verbs.connection.InboundMessage;
import io.rdmaverbs.verbs.connection.MessageHandler;

/**
 * Receives the messages and requests of the connections a listener accepts, the low-level form: declare
 * one as a bean and name it in {@code rdma.verbs.connections.listeners.<name>.handler} (or let it be the
 * only one).
 *
 * <pre>{@code
 * @Bean
 * RdmaMessageHandler echo() {
 *     return message -> message.reply(Message.of(message.toByteArray()));
 * }
 * }</pre>
 *
 * <p>Messages of one connection arrive one at a time, in order, on a thread of that connection: a slow
 * handler delays only its own connection. The payload is the registered receive buffer itself, valid only
 * during the call and on its thread (the buffer is posted again for the next message once the handler
 * returns): copy what must outlive it. A request is answered with {@link InboundMessage#reply}; a handler
 * that throws on a request answers it with an error the requester receives as an exception.
 */
@FunctionalInterface
public interface RdmaMessageHandler extends MessageHandler {
}
