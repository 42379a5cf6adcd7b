package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.resources.CyclicReferenceException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** References form a loop: show the loop and the properties to fix. */
final class CyclicReferenceFailureAnalyzer extends AbstractFailureAnalyzer<CyclicReferenceException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, CyclicReferenceException cause) {
        String description = "The RDMA resources " + String.join(" -> ", cause.keys())
                + " refer to each other in a cycle (" + String.join(", ", cause.properties())
                + "), so none of them can be created first.";
        String action = "Change one of " + String.join(", ", cause.properties())
                + ": each reference must name a resource of the kind its property asks for (a queue pair's srq a "
                + "shared receive queue, an SRQ's completion-queue a completion queue, a completion queue's channel a "
                + "completion channel), and those never refer back.";
        return new FailureAnalysis(description, action, cause);
    }
}
