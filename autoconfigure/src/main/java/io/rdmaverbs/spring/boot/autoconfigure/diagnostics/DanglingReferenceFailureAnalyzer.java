package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.resources.DanglingReferenceException;
import io.rdmaverbs.spring.boot.resources.CheckedDeclarations;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A reference names nothing usable: name the key, the missing name, and the names that exist. */
final class DanglingReferenceFailureAnalyzer extends AbstractFailureAnalyzer<DanglingReferenceException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, DanglingReferenceException cause) {
        String kind = CheckedDeclarations.label(cause.expected());
        String description = cause.getMessage() + ".";
        String declareIt = "declare a " + kind + " named '" + cause.name() + "' under "
                + VerbsProperties.devicePath(cause.deviceKey()) + "." + CheckedDeclarations.group(cause.expected());
        String change = "Change " + cause.property() + " to one of " + String.join(", ", cause.candidates());
        String action;
        if (cause.actual() != null) {
            // The name is taken by a resource of another kind: declaring it again would clash.
            action = cause.candidates().isEmpty()
                    ? "Declare a " + kind + " under " + VerbsProperties.devicePath(cause.deviceKey()) + "."
                            + CheckedDeclarations.group(cause.expected()) + " and point " + cause.property()
                            + " at it."
                    : change + ".";
        } else {
            action = cause.candidates().isEmpty()
                    ? "No " + kind + " is declared on device '" + cause.deviceKey() + "': " + declareIt + "."
                    : change + ", or " + declareIt + ".";
        }
        return new FailureAnalysis(description, action, cause);
    }
}
