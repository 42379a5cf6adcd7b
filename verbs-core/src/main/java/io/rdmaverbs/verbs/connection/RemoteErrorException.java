package io.rdmaverbs.verbs.connection;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The peer answered a request with an error: its handler failed, or nothing there takes the request. The
 * error's type and message are the peer's ({@code error-type}, {@code error-message} headers of the ERROR
 * frame); the headers carry whatever else the peer said (the endpoint that failed, for instance).
 */
public final class RemoteErrorException extends RuntimeException {

    /** The header naming the error's type: a Java exception class, or a code of the application's. */
    public static final String TYPE_HEADER = "error-type";
    /** The header with the error's message. */
    public static final String MESSAGE_HEADER = "error-message";

    private static final long serialVersionUID = 1L;

    private final String errorType;
    private final transient Map<String, String> headers;

    RemoteErrorException(String session, Map<String, String> headers) {
        super(session + ": the peer answered the request with an error: " + headers.getOrDefault(TYPE_HEADER, "error")
                + (headers.containsKey(MESSAGE_HEADER) ? ": " + headers.get(MESSAGE_HEADER) : ""));
        this.errorType = headers.getOrDefault(TYPE_HEADER, "error");
        this.headers = Map.copyOf(headers);
    }

    public String errorType() {
        return errorType;
    }

    public @Nullable String errorMessage() {
        return headers.get(MESSAGE_HEADER);
    }

    /** Every header of the error reply. */
    public Map<String, String> headers() {
        return headers;
    }
}
