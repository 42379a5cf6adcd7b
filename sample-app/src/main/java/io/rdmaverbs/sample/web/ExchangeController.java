package io.rdmaverbs.sample.web;

import io.rdmaverbs.sample.exchange.ExchangeResult;
import io.rdmaverbs.sample.exchange.LoopbackExchange;
import io.rdmaverbs.sample.exchange.XrcExchange;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /rdma/exchange?message=...} (RC) and {@code GET /rdma/xrc?message=...} (XRC). A failed verb
 * or an error completion answers 503 with a body naming it ({@link TrafficFailureAdvice}).
 */
@RestController
@RequestMapping("/rdma")
class ExchangeController {

    private final LoopbackExchange loopback;
    private final XrcExchange xrc;

    ExchangeController(LoopbackExchange loopback, XrcExchange xrc) {
        this.loopback = loopback;
        this.xrc = xrc;
    }

    @GetMapping("/exchange")
    ExchangeResult exchange(@RequestParam(defaultValue = "hello over RDMA") String message) {
        return loopback.exchange(message);
    }

    @GetMapping("/xrc")
    ExchangeResult xrc(@RequestParam(defaultValue = "hello over XRC") String message) {
        return xrc.exchange(message);
    }

    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    String badRequest(IllegalArgumentException e) {
        return e.getMessage();
    }

    @ExceptionHandler(IllegalStateException.class)
    @ResponseStatus(HttpStatus.CONFLICT)
    String conflict(IllegalStateException e) {
        return e.getMessage();
    }
}
