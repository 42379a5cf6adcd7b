package io.rdmaverbs.verbs.connection;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;

/**
 * What the {@link Session} of a connection is given (docs/connections.md, "Sessions"):
 *
 * <pre>{@code
 * SessionSpec.defaults().handler(message -> message.reply(message.message()))
 *         .requestTimeout(Duration.ofSeconds(5)).maxMessageSize(256L << 20)
 * }</pre>
 *
 * @param handler takes the messages and requests that arrive; null: requests are answered with an error
 *        ({@code no-handler}) and one-way messages are dropped
 * @param handlerExecutor runs the handler; null: the connection's lane, one message at a time in arrival
 *        order. Any other executor may run them concurrently: order is then the executor's
 * @param maxMessageSize the largest message this side accepts and sends, in bytes (larger than the
 *        receive buffers: by rendezvous)
 * @param requestTimeout how long {@link Session#request(Message)} waits for its reply
 * @param keepalive send a KEEPALIVE after this long without sending anything, so that a dead link shows as
 *        a failed completion (RETRY_EXC_ERR) even on an idle connection; zero: never
 */
public record SessionSpec(@Nullable MessageHandler handler, @Nullable Executor handlerExecutor, long maxMessageSize,
        Duration requestTimeout, Duration keepalive) {

    /** 64 MiB. */
    public static final long DEFAULT_MAX_MESSAGE_SIZE = 64L << 20;
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    public SessionSpec {
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        Objects.requireNonNull(keepalive, "keepalive");
        if (maxMessageSize < 1 || maxMessageSize > Integer.MAX_VALUE * 64L) {
            throw new IllegalArgumentException("maxMessageSize must be 1.." + (Integer.MAX_VALUE * 64L) + ", was "
                    + maxMessageSize);
        }
        if (!requestTimeout.isPositive()) {
            throw new IllegalArgumentException("requestTimeout must be positive, was " + requestTimeout);
        }
        if (keepalive.isNegative()) {
            throw new IllegalArgumentException("keepalive must not be negative (zero: never), was " + keepalive);
        }
    }

    /** No handler, the lane, {@value #DEFAULT_MAX_MESSAGE_SIZE} bytes, a 30 s request timeout, no keepalive. */
    public static SessionSpec defaults() {
        return new SessionSpec(null, null, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_REQUEST_TIMEOUT, Duration.ZERO);
    }

    public SessionSpec handler(MessageHandler messageHandler) {
        return new SessionSpec(Objects.requireNonNull(messageHandler, "messageHandler"), handlerExecutor,
                maxMessageSize, requestTimeout, keepalive);
    }

    public SessionSpec handlerExecutor(Executor executor) {
        return new SessionSpec(handler, Objects.requireNonNull(executor, "executor"), maxMessageSize, requestTimeout,
                keepalive);
    }

    public SessionSpec maxMessageSize(long bytes) {
        return new SessionSpec(handler, handlerExecutor, bytes, requestTimeout, keepalive);
    }

    public SessionSpec requestTimeout(Duration timeout) {
        return new SessionSpec(handler, handlerExecutor, maxMessageSize, timeout, keepalive);
    }

    public SessionSpec keepalive(Duration interval) {
        return new SessionSpec(handler, handlerExecutor, maxMessageSize, requestTimeout, interval);
    }
}
