package io.rdmaverbs.sample.web;

import java.util.Map;

import io.rdmaverbs.sample.connected.ConnectedEcho;
import io.rdmaverbs.sample.connected.EchoRun;
import io.rdmaverbs.spring.boot.connections.RdmaPeerUnavailableException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /rdma/connected/{peer}?count=N&size=S}: N messages of S bytes to the peer's listener, each
 * echo checked by its CRC32. 503 with the peer's state and last error while it is not connected.
 */
@RestController
@RequestMapping("/rdma/connected")
class ConnectedEchoController {

    private final ConnectedEcho echo;

    ConnectedEchoController(ConnectedEcho echo) {
        this.echo = echo;
    }

    @PostMapping("/{peer}")
    EchoRun echo(@PathVariable String peer, @RequestParam(defaultValue = "10") int count,
            @RequestParam(defaultValue = "64") int size) {
        return echo.echo(peer, count, size);
    }

    @ExceptionHandler(RdmaPeerUnavailableException.class)
    ResponseEntity<Map<String, Object>> unavailable(RdmaPeerUnavailableException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(Map.of("peer", e.peer(), "state",
                e.state().name(), "error", e.getMessage()));
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, Object>> badRequest(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(Map.of("error", String.valueOf(e.getMessage())));
    }
}
