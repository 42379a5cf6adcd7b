package io.rdmaverbs.spring.boot;

/**
 * A setting the starter cannot honour, refused at startup with the property to change, what is wrong
 * and what to do, which a failure analyzer prints: a declaration under {@code rdma.verbs.devices}, a
 * listener or peer under {@code rdma.verbs.connections}, another {@code rdma.verbs} setting. Each
 * subclass is one family of settings, with its own analysis heading.
 */
public abstract class InvalidSettingException extends RuntimeException {

    private final String property;
    private final String problem;
    private final String action;

    protected InvalidSettingException(String property, String problem, String action) {
        super(property + ": " + problem);
        this.property = property;
        this.problem = problem;
        this.action = action;
    }

    /** The property to change, e.g. {@code rdma.verbs.connections.peers.echo.address}. */
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
