package io.rdmaverbs.verbs;

/**
 * An immutable reference to a resource for reports: enough to name it (and find it again with
 * {@link Verbs#find(long)}) without holding it.
 *
 * @param id the graph-unique id
 * @param kind what it is
 * @param name the user's name for it ({@code pd0}) or a generated one ({@code pd#3})
 * @param device the device it lives on, or {@value #NO_DEVICE} for a CM object that has none (yet)
 * @param releaseVerb the call that releases it: its kind's, except where the resource says otherwise
 *        ({@code rdma_destroy_qp} for a QP on a CM id; none for a device context librdmacm opened)
 */
public record ResourceRef(long id, ResourceKind kind, String name, String device, String releaseVerb) {

    /** The {@link #device} of a CM event channel, and of a CM id before it is bound or resolved. */
    public static final String NO_DEVICE = "rdma_cm";

    @Override
    public String toString() {
        return kind.shortName() + " '" + name + "' (#" + id + " on " + device + ")";
    }

    /**
     * {@code this + link + other + end} in one concatenation, without the two refs' own strings in between
     * (each {@link #toString()}): the graph words one such sentence for every stuck reference of a report,
     * 100k of them for a context with 100k resources.
     */
    String sentence(String link, ResourceRef other, String end) {
        return kind.shortName() + " '" + name + "' (#" + id + " on " + device + ")" + link
                + other.kind.shortName() + " '" + other.name + "' (#" + other.id + " on " + other.device + ")" + end;
    }
}
