package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.resources.DuplicateResourceKeyException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A key is used twice: keys are bean names. */
final class DuplicateResourceKeyFailureAnalyzer extends AbstractFailureAnalyzer<DuplicateResourceKeyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, DuplicateResourceKeyException cause) {
        if (cause.existingBean()) {
            return new FailureAnalysis("The RDMA resource declared at " + cause.properties().getFirst()
                    + " would be a bean named '" + cause.key() + "', but a bean of that name already exists.",
                    "Rename the key at " + cause.properties().getFirst() + " (and the references to it).", cause);
        }
        return new FailureAnalysis("The key '" + cause.key() + "' is declared more than once under rdma.verbs.devices: "
                + String.join(", ", cause.properties()) + ". Keys are bean names, so they must be unique across "
                + "every device and every kind of resource.",
                "Rename all but one of " + String.join(", ", cause.properties()) + " (and the references to them).",
                cause);
    }
}
