package io.rdmaverbs.spring.boot.resources;

/**
 * A declaration is incomplete or inconsistent in itself: a required reference is missing, or a setting
 * does not apply to the kind of resource (a receive CQ on an XRC send queue pair, say).
 */
public final class InvalidDeclarationException extends RuntimeException {

    private final String property;
    private final String problem;
    private final String action;

    InvalidDeclarationException(String property, String problem, String action) {
        super(property + ": " + problem);
        this.property = property;
        this.problem = problem;
        this.action = action;
    }

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
