package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;
import io.rdmaverbs.spring.boot.connections.RequiredPeerUnavailableException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A required peer was not connected at startup. */
final class RequiredPeerUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<RequiredPeerUnavailableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RequiredPeerUnavailableException cause) {
        String path = ConnectionDeclarations.peerPath(cause.peer());
        return new FailureAnalysis(cause.getMessage() + ".",
                "Start the listener at " + cause.address() + " first, check " + path + ".address and .port, or set "
                        + path + ".required=false to start without it and connect in the background.",
                cause);
    }
}
