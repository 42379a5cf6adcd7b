package io.rdmaverbs.verbs;

/**
 * A resource was used after (or while) it was closed. Thrown in Java, before any native call, so a
 * stale handle never reaches libibverbs.
 */
public final class ResourceClosedException extends IllegalStateException {

    private final ResourceRef resource;

    /** {@code resource} is {@code state} ("closed", "being closed", "ended for ... (why)"). */
    public ResourceClosedException(ResourceRef resource, String state) {
        super(resource + " is " + state + "; it can no longer be used");
        this.resource = resource;
    }

    public ResourceRef resource() {
        return resource;
    }
}
