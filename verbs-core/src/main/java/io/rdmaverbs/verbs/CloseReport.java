package io.rdmaverbs.verbs;

import java.util.List;

import io.rdmaverbs.verbs.error.VerbsException;

/**
 * What a close of a subgraph did: the releases that succeeded, in order, and what was left open and why.
 *
 * @param policy the policy used
 * @param closed the resources released, in the order they were released
 * @param left the resources still open, each with the reason
 */
public record CloseReport(ClosePolicy policy, List<ResourceRef> closed, List<Leftover> left) {

    public CloseReport {
        closed = List.copyOf(closed);
        left = List.copyOf(left);
    }

    /**
     * A resource the close could not release.
     *
     * @param resource the resource
     * @param reason why (the native failure, or the stuck references a strict close refused on)
     * @param failure the exception, carrying verb and errno
     */
    public record Leftover(ResourceRef resource, String reason, VerbsException failure) {
    }

    public boolean isComplete() {
        return left.isEmpty();
    }
}
