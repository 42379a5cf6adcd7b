package io.rdmaverbs.spring.boot.resources;

import java.util.List;

/**
 * Two declarations under {@code rdma.verbs.devices} use the same key (or a key names a bean that
 * already exists): keys are bean names, so they must be unique across the whole tree.
 */
public final class DuplicateResourceKeyException extends RuntimeException {

    private final String key;
    private final List<String> properties;
    private final boolean existingBean;

    DuplicateResourceKeyException(String key, List<String> properties, boolean existingBean) {
        super(existingBean
                ? "'" + key + "' (" + properties.getFirst() + ") is already the name of another bean"
                : "'" + key + "' is declared more than once: " + String.join(", ", properties));
        this.key = key;
        this.properties = List.copyOf(properties);
        this.existingBean = existingBean;
    }

    public String key() {
        return key;
    }

    /** Where the key is declared. */
    public List<String> properties() {
        return properties;
    }

    /** Whether the clash is with a bean defined elsewhere rather than within {@code rdma.verbs}. */
    public boolean existingBean() {
        return existingBean;
    }
}
