package io.rdmaverbs.spring.boot.resources;

import java.util.List;

/**
 * References between declarations form a cycle, so there is no order in which the resources could be
 * created (each would have to exist before the other).
 */
public final class CyclicReferenceException extends RuntimeException {

    private final List<String> keys;
    private final List<String> properties;

    CyclicReferenceException(List<String> keys, List<String> properties) {
        super("the references " + String.join(", ", properties) + " form a cycle: " + String.join(" -> ", keys));
        this.keys = List.copyOf(keys);
        this.properties = List.copyOf(properties);
    }

    /** The keys on the cycle, the first repeated at the end. */
    public List<String> keys() {
        return keys;
    }

    /** The reference properties that make up the cycle. */
    public List<String> properties() {
        return properties;
    }
}
