package io.rdmaverbs.sample.connected;

import java.util.Map;

import io.rdmaverbs.spring.boot.messaging.ConditionalOnRdmaListener;
import io.rdmaverbs.spring.boot.messaging.RdmaEndpoint;
import io.rdmaverbs.spring.boot.messaging.RdmaHeaders;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageMapping;
import io.rdmaverbs.verbs.connection.Message;

import org.springframework.stereotype.Component;

/**
 * The endpoint of the listener {@code echo}: a request on the route {@code echo} is answered with its own
 * payload and headers (the checksum header travels back with it). The payload parameter is a copy of the
 * receive buffer, taken before the buffer is posted again for the next message. Only where the listener
 * is declared: host B of the two-host run ({@code peer} profile) declares the peer alone.
 */
@Component
@RdmaEndpoint("echo")
@ConditionalOnRdmaListener("echo")
class EchoEndpoint {

    @RdmaMessageMapping("echo")
    Message echo(byte[] payload, @RdmaHeaders Map<String, String> headers) {
        return Message.of(payload).withHeaders(headers);
    }
}
