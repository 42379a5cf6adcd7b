package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.resources.InvalidDeclarationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A declaration is incomplete or inconsistent in itself. */
final class InvalidDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDeclarationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidDeclarationException cause) {
        return new FailureAnalysis("Invalid RDMA resource declaration: " + cause.problem() + ".",
                cause.action() + ".", cause);
    }
}
