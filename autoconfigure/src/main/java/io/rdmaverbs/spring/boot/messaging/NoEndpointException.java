package io.rdmaverbs.spring.boot.messaging;

import java.util.Set;

/** A message whose route no endpoint of its listener takes. */
public final class NoEndpointException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    NoEndpointException(String listener, String route, Set<String> routes) {
        super("listener '" + listener + "' has no endpoint for " + (route.isEmpty() ? "messages without a route"
                : "route '" + route + "'") + " (its routes: " + String.join(", ", routes.stream()
                        .map(r -> r.isEmpty() ? "(none)" : r).sorted().toList()) + ")");
    }
}
