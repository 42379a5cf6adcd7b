package io.rdmaverbs.spring.boot.messaging.converter;

/**
 * A payload that could not be converted: no converter for its type or content type, or a payload that does
 * not parse. On an endpoint's request it is the error reply's type, so the caller learns it.
 */
public final class RdmaMessageConversionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RdmaMessageConversionException(String message) {
        super(message);
    }

    public RdmaMessageConversionException(String message, Throwable cause) {
        super(message, cause);
    }
}
