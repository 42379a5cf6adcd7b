package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.autoconfigure.InvalidVerbsSettingException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A setting under {@code rdma.verbs} (the teardown's, say) that its consumer cannot honour. */
final class InvalidVerbsSettingFailureAnalyzer extends AbstractFailureAnalyzer<InvalidVerbsSettingException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidVerbsSettingException cause) {
        return new FailureAnalysis("Invalid RDMA verbs setting " + cause.property() + ": " + cause.problem() + ".",
                cause.action() + ".", cause);
    }
}
