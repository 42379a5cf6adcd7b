package io.rdmaverbs.spring.boot.resources;

import io.rdmaverbs.spring.boot.InvalidSettingException;

/**
 * A declaration is incomplete or inconsistent in itself: a required reference is missing, or a setting
 * does not apply to the kind of resource (a receive CQ on an XRC send queue pair, say).
 */
public final class InvalidDeclarationException extends InvalidSettingException {

    InvalidDeclarationException(String property, String problem, String action) {
        super(property, problem, action);
    }
}
