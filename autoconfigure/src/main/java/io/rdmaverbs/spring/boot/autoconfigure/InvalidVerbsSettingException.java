package io.rdmaverbs.spring.boot.autoconfigure;

/**
 * A setting under {@code rdma.verbs} outside the declared resources (which have
 * {@code InvalidDeclarationException}) is one its consumer cannot honour, e.g. a negative
 * {@code rdma.verbs.teardown.timeout}. Thrown when the bean that takes it is created.
 */
public final class InvalidVerbsSettingException extends RuntimeException {

    private final String property;
    private final String problem;
    private final String action;

    InvalidVerbsSettingException(String property, String problem, String action) {
        super(property + ": " + problem);
        this.property = property;
        this.problem = problem;
        this.action = action;
    }

    /** The property to change, e.g. {@code rdma.verbs.teardown.timeout}. */
    public String property() {
        return property;
    }

    /** What is wrong, in a sentence. */
    public String problem() {
        return problem;
    }

    /** What to change, in a sentence. */
    public String action() {
        return action;
    }
}
