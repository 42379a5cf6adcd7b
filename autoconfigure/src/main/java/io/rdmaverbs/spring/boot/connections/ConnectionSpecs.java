package io.rdmaverbs.spring.boot.connections;

import java.time.Duration;

import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.connection.ConnectionSpec;
import io.rdmaverbs.verbs.connection.MessageHandler;
import io.rdmaverbs.verbs.connection.SessionSpec;

import org.jspecify.annotations.Nullable;

/**
 * The verbs-core {@link ConnectionSpec} and {@link SessionSpec} of a declared connection: one RC QP with
 * two send SGEs (a frame's header and a payload gathered without a copy), one CQ served by the connection
 * manager's completion threads, the receive buffers (posted before the handshake) and as many send slots
 * as the send queue is deep, all {@code buffer-size} bytes, in one registered memory region, and the
 * handshake's read depths and retries.
 */
final class ConnectionSpecs {

    private ConnectionSpecs() {
    }

    /** Checks the declaration under {@code path} (its {@code connection} key) before anything is created. */
    static void check(String path, ConnectionDeclarations.PerConnection declared) {
        if (declared.receiveBuffers() > declared.receiveQueueDepth()) {
            throw new InvalidConnectionSettingException(path + ".receive-queue-depth", "it is "
                    + declared.receiveQueueDepth() + ", below the " + declared.receiveBuffers()
                    + " receive-buffers posted before the connection is made",
                    "Raise it to at least " + declared.receiveBuffers() + ", or lower receive-buffers");
        }
        int both = declared.sendQueueDepth() + declared.receiveQueueDepth();
        if (declared.completionQueueSize() < both) {
            throw new InvalidConnectionSettingException(path + ".completion-queue-size", "it is "
                    + declared.completionQueueSize() + ": too small for a completion of every work request of both "
                    + "queues (send-queue-depth + receive-queue-depth = " + both + ")",
                    "Raise it to at least " + both);
        }
        long size = declared.bufferSize().toBytes();
        if (size < 64 || size > Integer.MAX_VALUE) {
            throw new InvalidConnectionSettingException(path + ".buffer-size", "it is " + declared.bufferSize()
                    + "; a message buffer is 64 bytes (the session protocol's headers) to 2 GB",
                    "Set a size such as 4KB");
        }
        long max = declared.maxMessageSize().toBytes();
        if (max < 1) {
            throw new InvalidConnectionSettingException(path + ".max-message-size", "it is " + declared.maxMessageSize()
                    + "; the largest message is at least 1 byte", "Set a size such as 64MB");
        }
        try {
            of(declared);
        } catch (IllegalArgumentException e) {
            throw new InvalidConnectionSettingException(path, e.getMessage(), "Change the connection's queue sizes");
        }
    }

    static ConnectionSpec of(ConnectionDeclarations.PerConnection declared) {
        int size = (int) declared.bufferSize().toBytes();
        return new ConnectionSpec(declared.sendQueueDepth(), declared.receiveQueueDepth(), 2, 1, declared.maxInline(),
                declared.completionQueueSize(), declared.receiveBuffers(), size, declared.sendQueueDepth(), size, false,
                new CmConnectionParams(new byte[0], declared.responderResources(), declared.initiatorDepth(),
                        declared.retryCount(), declared.rnrRetryCount()));
    }

    /** The session of a connection declared so: handler, keepalive, largest message, request timeout. */
    static SessionSpec session(ConnectionDeclarations.PerConnection declared, @Nullable MessageHandler handler,
            Duration keepalive, Duration requestTimeout) {
        SessionSpec spec = SessionSpec.defaults().maxMessageSize(declared.maxMessageSize().toBytes())
                .keepalive(keepalive).requestTimeout(requestTimeout);
        return handler == null ? spec : spec.handler(handler);
    }
}
