package io.rdmaverbs.verbs.error;

import org.jspecify.annotations.Nullable;

/**
 * The one exception type for a failed verb: it names the verb ({@code ibv_dealloc_pd}), the resource
 * it was called on, and the errno the kernel or libibverbs answered (or would answer, for a close
 * the resource graph refused before calling native code: see {@link io.rdmaverbs.verbs.CloseRefusedException}).
 */
public class VerbsException extends RuntimeException {

    private final String verb;
    private final String resource;
    private final @Nullable Errno errno;
    private final String reason;

    public VerbsException(String verb, String resource, @Nullable Errno errno, String message) {
        this(verb, resource, errno, message, null);
    }

    public VerbsException(String verb, String resource, @Nullable Errno errno, String message,
            @Nullable Throwable cause) {
        super(format(verb, resource, errno, message), cause);
        this.verb = verb;
        this.resource = resource;
        this.errno = errno;
        this.reason = message;
    }

    /** The libibverbs function that failed, e.g. {@code ibv_destroy_cq}. */
    public String verb() {
        return verb;
    }

    /** The resource the verb was called on, as the resource graph names it. */
    public String resource() {
        return resource;
    }

    /** The errno, or {@code null} when the failure has no errno (a call that would block forever). */
    public @Nullable Errno errno() {
        return errno;
    }

    /** The message without the verb/resource/errno prefix. */
    public String reason() {
        return reason;
    }

    /**
     * The same failure, attributed to a resource the caller knows better than the provider did.
     * Providers name handles; the resource graph names resources.
     */
    public VerbsException about(String resourceName) {
        VerbsException copy = new VerbsException(verb, resourceName, errno, reason, getCause());
        copy.setStackTrace(getStackTrace());
        return copy;
    }

    private static String format(String verb, String resource, @Nullable Errno errno, String message) {
        StringBuilder sb = new StringBuilder(verb).append(" on ").append(resource);
        if (errno != null) {
            sb.append(" failed with ").append(errno.name()).append(" (").append(errno.number()).append(')');
        } else {
            sb.append(" failed");
        }
        return sb.append(": ").append(message).toString();
    }
}
