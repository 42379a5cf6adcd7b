package io.rdmaverbs.verbs;

import java.util.List;
import java.util.Map;

import io.rdmaverbs.verbs.attr.Gid;

import org.jspecify.annotations.Nullable;

/**
 * A UD QP's membership of a multicast group ({@code ibv_attach_mcast}). Closing it detaches
 * ({@code ibv_detach_mcast}); while it lives, {@code ibv_destroy_qp} fails with {@code EBUSY} ({@code ibv_attach_mcast(3)}, {@code ibv_destroy_qp(3)}).
 */
public final class MulticastAttachment extends VerbsResource {

    private final QueuePair qp;
    private final Gid group;
    private final int lid;

    MulticastAttachment(QueuePair qp, Gid group, int lid, @Nullable String name) {
        super(qp.verbs, ResourceKind.MULTICAST_ATTACHMENT, List.of(qp), name != null ? name : group.toString());
        this.qp = qp;
        this.group = group;
        this.lid = lid;
    }

    @Override
    public DeviceContext context() {
        return qp.context();
    }

    public QueuePair queuePair() {
        return qp;
    }

    public Gid group() {
        return group;
    }

    public int lid() {
        return lid;
    }

    @Override
    public Map<String, Object> details() {
        Map<String, Object> m = new Details();
        m.put("group", group.toString());
        m.put("lid", lid);
        m.put("qp", qp.name());
        return m;
    }

    /** The attachment makes {@code ibv_destroy_qp(3)} of its QP fail until it is detached. */
    @Override
    Hold holdOn(VerbsResource parent) {
        return new Hold(StuckReference.Cause.MULTICAST_ATTACHMENT, "is attached to multicast group " + name());
    }

    @Override
    void release() {
        qp.detachMulticast(group, lid);
    }
}
