package io.rdmaverbs.sample.web;

import io.rdmaverbs.sample.exchange.ChurnResult;
import io.rdmaverbs.sample.exchange.ResourceChurn;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /rdma/churn?message=...}: creates a CQ, an MR and two RC QPs under the declared PD, sends
 * one message between the QPs and closes everything again ({@link ResourceChurn}).
 */
@RestController
@RequestMapping("/rdma")
class ResourceChurnController {

    private final ResourceChurn churn;

    ResourceChurnController(ResourceChurn churn) {
        this.churn = churn;
    }

    @PostMapping("/churn")
    ChurnResult churn(@RequestParam(defaultValue = "created at run time") String message) {
        return churn.churn(message);
    }

    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    String badRequest(IllegalArgumentException e) {
        return e.getMessage();
    }
}
