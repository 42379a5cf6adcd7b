package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import io.rdmaverbs.spring.boot.connections.RdmaPeer;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** A controller that takes a declared peer, as a consumer application's would: it relays each body over it. */
@RestController
class EchoController {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final RdmaPeer peer;

    EchoController(@Qualifier("echo") RdmaPeer peer) {
        this.peer = peer;
    }

    @PostMapping("/echo")
    byte[] echo(@RequestBody byte[] message) throws InterruptedException, TimeoutException {
        if (!peer.awaitConnected(WAIT)) {
            throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "peer 'echo': " + peer.lastError());
        }
        return peer.request(message, WAIT);
    }
}
