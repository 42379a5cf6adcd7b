package io.rdmaverbs.spring.boot.connections;

import io.rdmaverbs.spring.boot.InvalidSettingException;

/**
 * A listener or peer under {@code rdma.verbs.connections} cannot be made as configured: an address that
 * is no IP literal, a listener with both or neither of address and device, queues too small for the
 * buffers, a handler bean that is missing or ambiguous. Thrown before any connection resource exists.
 */
public final class InvalidConnectionSettingException extends InvalidSettingException {

    public InvalidConnectionSettingException(String property, String problem, String action) {
        super(property, problem, action);
    }
}
