package io.rdmaverbs.spring.boot.connections;

import io.rdmaverbs.verbs.connection.ConnectionSpec;

/**
 * The verbs-core {@link ConnectionSpec} of a declared connection: one RC QP, one CQ reporting through a
 * completion channel of its own, the receive buffers (posted before the handshake) and as many send
 * buffers as the send queue is deep, all {@code buffer-size} bytes, in one registered memory region.
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
        if (size < 1 || size > Integer.MAX_VALUE) {
            throw new InvalidConnectionSettingException(path + ".buffer-size", "it is " + declared.bufferSize()
                    + "; a message buffer is 1 byte to 2 GB", "Set a size such as 4KB");
        }
        try {
            of(declared);
        } catch (IllegalArgumentException e) {
            throw new InvalidConnectionSettingException(path, e.getMessage(), "Change the connection's queue sizes");
        }
    }

    static ConnectionSpec of(ConnectionDeclarations.PerConnection declared) {
        int size = (int) declared.bufferSize().toBytes();
        return new ConnectionSpec(declared.sendQueueDepth(), declared.receiveQueueDepth(), 1, 1, declared.maxInline(),
                declared.completionQueueSize(), declared.receiveBuffers(), size, declared.sendQueueDepth(), size, true,
                io.rdmaverbs.verbs.attr.CmConnectionParams.defaults());
    }
}
