package io.rdmaverbs.sample.web;

import io.rdmaverbs.sample.exchange.CompletionFailedException;
import io.rdmaverbs.verbs.error.VerbsException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * A failed verb or an error completion is the device's answer, not a bug of the application: 503 with an
 * RFC 9457 problem body that names what failed (the verb, the resource and the errno, or the QPs and the
 * completion statuses), never a bare 500. After IBV_EVENT_DEVICE_FATAL every exchange ends here, with EIO.
 */
@RestControllerAdvice
class TrafficFailureAdvice {

    @ExceptionHandler(VerbsException.class)
    ProblemDetail verbFailed(VerbsException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        problem.setTitle("RDMA verb failed");
        problem.setProperty("verb", e.verb());
        problem.setProperty("resource", e.resource());
        if (e.errno() != null) {
            problem.setProperty("errno", e.errno().name());
        }
        return problem;
    }

    @ExceptionHandler(CompletionFailedException.class)
    ProblemDetail completionFailed(CompletionFailedException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        problem.setTitle("RDMA work request completed with an error");
        return problem;
    }
}
