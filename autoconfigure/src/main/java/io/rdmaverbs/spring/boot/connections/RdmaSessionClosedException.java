package io.rdmaverbs.spring.boot.connections;

import org.jspecify.annotations.Nullable;

/**
 * A message could not be sent, or its reply not received, because the session ended: the other side
 * disconnected, a work request completed in error, or the session was closed.
 */
public final class RdmaSessionClosedException extends RuntimeException {

    RdmaSessionClosedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
