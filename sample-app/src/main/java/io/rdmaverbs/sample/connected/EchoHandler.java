package io.rdmaverbs.sample.connected;

import io.rdmaverbs.spring.boot.connections.RdmaMessageHandler;
import io.rdmaverbs.verbs.connection.InboundMessage;
import io.rdmaverbs.verbs.connection.Message;

import org.springframework.stereotype.Component;

/**
 * The handler of the listener {@code echo}: every request is answered with its own payload and headers
 * (a checksum header travels back with it), every one-way message goes back as a message. The payload is
 * the registered receive buffer: it is copied before the handler returns and the buffer is posted again.
 */
@Component
class EchoHandler implements RdmaMessageHandler {

    @Override
    public void onMessage(InboundMessage message) {
        byte[] payload = message.toByteArray();
        if (message.isRequest()) {
            message.reply(Message.of(payload).withHeaders(message.headers()));
        } else {
            message.session().send(payload);
        }
    }
}
