package io.rdmaverbs.spring.boot.connections;

/**
 * A listener or peer under {@code rdma.verbs.connections} cannot be made as configured: an address that
 * is no IP literal, a listener with both or neither of address and device, queues too small for the
 * buffers, a handler bean that is missing or ambiguous. Thrown before any connection resource exists.
 */
public final class InvalidConnectionSettingException extends RuntimeException {

    private final String property;
    private final String problem;
    private final String action;

    public InvalidConnectionSettingException(String property, String problem, String action) {
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
