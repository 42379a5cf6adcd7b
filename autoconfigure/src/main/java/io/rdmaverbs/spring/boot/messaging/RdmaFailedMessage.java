package io.rdmaverbs.spring.boot.messaging;

import io.rdmaverbs.verbs.connection.Message;

import org.jspecify.annotations.Nullable;

/**
 * A one-way message an endpoint failed on (or no endpoint takes), as the {@link RdmaErrorHandler} and a
 * {@link RdmaMessageRecoverer} get it.
 *
 * @param listener the declared listener it came to
 * @param route its route ("" for none)
 * @param endpoint the method that failed ({@code OrderEndpoint#cancel}), null when no endpoint takes the route
 * @param message a heap copy of the message, headers included: it outlives the receive buffer
 * @param cause what the endpoint threw, or {@link NoEndpointException}
 */
public record RdmaFailedMessage(String listener, String route, @Nullable String endpoint, Message message,
        Throwable cause) {

    @Override
    public String toString() {
        return "one-way message of " + message.length() + " bytes to listener '" + listener + "'"
                + (route.isEmpty() ? "" : " route '" + route + "'") + (endpoint == null ? "" : " (" + endpoint + ")");
    }
}
