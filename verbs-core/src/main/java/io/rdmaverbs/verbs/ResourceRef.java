package io.rdmaverbs.verbs;

/**
 * An immutable reference to a resource for reports: enough to name it (and find it again with
 * {@link Verbs#find(long)}) without holding it.
 *
 * @param id the graph-unique id
 * @param kind what it is
 * @param name the user's name for it ({@code pd0}) or a generated one ({@code pd#3})
 * @param device the device it lives on, or {@value #NO_DEVICE} for a CM object that has none (yet)
 */
public record ResourceRef(long id, ResourceKind kind, String name, String device) {

    /** The {@link #device} of a CM event channel, and of a CM id before it is bound or resolved. */
    public static final String NO_DEVICE = "rdma_cm";

    @Override
    public String toString() {
        return kind.shortName() + " '" + name + "' (#" + id + " on " + device + ")";
    }
}
