package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.connections.InvalidConnectionSettingException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A listener or peer under {@code rdma.verbs.connections} cannot be made as configured. */
final class InvalidConnectionSettingFailureAnalyzer extends AbstractFailureAnalyzer<InvalidConnectionSettingException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidConnectionSettingException cause) {
        return new FailureAnalysis("Invalid RDMA connection setting " + cause.property() + ": " + cause.problem() + ".",
                cause.action() + ".", cause);
    }
}
