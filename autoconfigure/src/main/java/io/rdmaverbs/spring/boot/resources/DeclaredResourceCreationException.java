package io.rdmaverbs.spring.boot.resources;

import io.rdmaverbs.verbs.error.VerbsException;

/**
 * A declared resource could not be created because its verb failed ({@code ibv_create_cq} answered
 * ENOMEM, say): the {@link VerbsException} as cause, with the declaration it was creating, so that a
 * startup failure names the property to look at and not only the verb's parent.
 */
public final class DeclaredResourceCreationException extends RuntimeException {

    private final String key;
    private final String property;
    private final String kind;

    DeclaredResourceCreationException(String key, String property, String kind, VerbsException cause) {
        super("the " + kind + " declared at " + property + " could not be created: " + cause.getMessage(), cause);
        this.key = key;
        this.property = property;
        this.kind = kind;
    }

    /** The declaration's key, which is also its bean name. */
    public String key() {
        return key;
    }

    /** The property the resource is declared at, e.g. {@code rdma.verbs.devices.hca.completion-queues.cq}. */
    public String property() {
        return property;
    }

    /** What the resource is, as the documentation calls it: {@code completion queue}. */
    public String kind() {
        return kind;
    }

    /** The failed verb. */
    public VerbsException verbFailure() {
        return (VerbsException) getCause();
    }
}
