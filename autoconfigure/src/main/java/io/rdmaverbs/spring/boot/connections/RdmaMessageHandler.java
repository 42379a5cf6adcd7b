package io.rdmaverbs.spring.boot.connections;

import io.rdmaverbs.verbs.connection.InboundMessage;
import io.rdmaverbs.verbs.connection.MessageHandler;

/**
 * Receives the messages and requests of the connections a listener accepts, the low-level form beside the
 * annotated endpoints of {@code io.rdmaverbs.spring.boot.messaging}: declare one as a bean and name it in
 * {@code rdma.verbs.connections.listeners.<name>.handler} (or let it be the only one, with no endpoint
 * bound to the listener).
 *
 * <pre>{@code
 * @Bean
 * RdmaMessageHandler echo() {
 *     return message -> message.reply(Message.of(message.toByteArray()));
 * }
 * }</pre>
 *
 * <p>Messages arrive on virtual threads, at most the listener's {@code concurrency} at once; with
 * {@code ordered: true}, one at a time per connection in arrival order, so that a slow handler delays only
 * its own connection. The payload is the registered receive buffer itself, valid only
 * during the call and on its thread (the buffer is posted again for the next message once the handler
 * returns): copy what must outlive it. A request is answered with {@link InboundMessage#reply}; a handler
 * that throws on a request answers it with an error the requester receives as an exception.
 */
@FunctionalInterface
public interface RdmaMessageHandler extends MessageHandler {
}
