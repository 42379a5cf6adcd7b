package io.rdmaverbs.sample.connected;

import java.nio.ByteBuffer;

import io.rdmaverbs.spring.boot.connections.RdmaMessageHandler;
import io.rdmaverbs.spring.boot.connections.RdmaSession;

import org.springframework.stereotype.Component;

/**
 * The handler of the listener {@code echo}: every message goes back, unchanged, on the connection it
 * came on. The buffer is the registered receive buffer; the send copies it into a send buffer before the
 * receive is posted again.
 */
@Component
class EchoHandler implements RdmaMessageHandler {

    @Override
    public void onMessage(RdmaSession session, ByteBuffer message) {
        session.send(message);
    }
}
