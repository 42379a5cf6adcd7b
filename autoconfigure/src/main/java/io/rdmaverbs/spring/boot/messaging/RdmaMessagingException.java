package io.rdmaverbs.spring.boot.messaging;

/** A send or request through the {@link RdmaTemplate} that failed; its subclasses say how. */
public class RdmaMessagingException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RdmaMessagingException(String message, Throwable cause) {
        super(message, cause);
    }

    public RdmaMessagingException(String message) {
        super(message);
    }
}
