package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;
import io.rdmaverbs.spring.boot.connections.ListenerBindException;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A declared listener could not bind its address and port: say which property to change, and to what. */
final class ListenerBindFailureAnalyzer extends AbstractFailureAnalyzer<ListenerBindException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ListenerBindException cause) {
        String path = ConnectionDeclarations.listenerPath(cause.listener());
        VerbsException failure = cause.verbFailure();
        Errno errno = failure.errno();
        String action;
        if (Errno.EADDRINUSE.equals(errno)) {
            action = cause.portHolder() != null
                    ? "The listener '" + cause.portHolder() + "' of this application listens on that port already: "
                            + "give " + path + ".port another value, or 0 to let the connection manager pick a free port."
                    : "Another process listens on that port (rdma resource show cm_id lists the CM ids and their "
                            + "ports): set " + path + ".port to a free port, or 0 to let the connection manager pick "
                            + "one.";
        } else if (Errno.EADDRNOTAVAIL.equals(errno)) {
            action = "No RDMA device of this host has that address: set " + path + ".address to an address of one "
                    + "(ip -6 addr show dev <its netdev>; rdma link names the netdev), or replace it by " + path
                    + ".device=<device name> to listen on the device's link-local address.";
        } else {
            action = "Check " + path + ".address (or .device) and " + path + ".port against what " + failure.verb()
                    + "(3) says of " + (errno == null ? "this failure" : errno.name()) + ".";
        }
        return new FailureAnalysis(cause.getMessage() + ".", action, cause);
    }
}
