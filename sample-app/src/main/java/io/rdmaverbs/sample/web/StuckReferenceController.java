package io.rdmaverbs.sample.web;

import java.util.List;
import java.util.Map;

import io.rdmaverbs.sample.exchange.Borrowers;
import io.rdmaverbs.sample.exchange.ExchangeResult;
import io.rdmaverbs.sample.exchange.LoopbackExchange;
import io.rdmaverbs.verbs.Lease;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Stuck references on purpose: {@code POST /rdma/stuck/lease?resource=pd&holder=me} takes a lease,
 * {@code DELETE /rdma/stuck/lease} releases them, {@code POST /rdma/stuck/unacknowledged-event} leaves a
 * completion event unacknowledged. Then look at {@code /actuator/health/rdmaVerbs} and stop the
 * application.
 */
@RestController
@RequestMapping("/rdma/stuck")
class StuckReferenceController {

    private final Borrowers borrowers;
    private final LoopbackExchange loopback;

    StuckReferenceController(Borrowers borrowers, LoopbackExchange loopback) {
        this.borrowers = borrowers;
        this.loopback = loopback;
    }

    @PostMapping("/lease")
    Map<String, Object> lease(@RequestParam(defaultValue = "pd") String resource,
            @RequestParam(defaultValue = "sample-borrower") String holder) {
        return describe(borrowers.borrow(resource, holder));
    }

    @GetMapping("/lease")
    List<Map<String, Object>> leases() {
        return borrowers.leases().stream().map(StuckReferenceController::describe).toList();
    }

    @DeleteMapping("/lease")
    Map<String, Object> release() {
        return Map.of("released", borrowers.releaseAll());
    }

    @PostMapping("/unacknowledged-event")
    ExchangeResult unacknowledgedEvent(@RequestParam(defaultValue = "left unacknowledged") String message) {
        return loopback.exchangeLeavingOneEventUnacknowledged(message);
    }

    private static Map<String, Object> describe(Lease lease) {
        return Map.of("resource", lease.resource().toString(), "holder", lease.holder(), "since",
                lease.since().toString(), "held", lease.isHeld());
    }

    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.NOT_FOUND)
    String notFound(IllegalArgumentException e) {
        return e.getMessage();
    }
}
