package io.rdmaverbs.spring.boot.autoconfigure;

import io.rdmaverbs.spring.boot.InvalidSettingException;

/**
 * A setting under {@code rdma.verbs} outside the declared resources (which have
 * {@code InvalidDeclarationException}) is one its consumer cannot honour, e.g. a negative
 * {@code rdma.verbs.teardown.timeout}. Thrown when the bean that takes it is created.
 */
public final class InvalidVerbsSettingException extends InvalidSettingException {

    InvalidVerbsSettingException(String property, String problem, String action) {
        super(property, problem, action);
    }
}
