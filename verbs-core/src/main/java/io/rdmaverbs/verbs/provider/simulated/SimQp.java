package io.rdmaverbs.verbs.provider.simulated;

import java.util.LinkedHashSet;
import java.util.Set;

import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.provider.QpHandle;

import org.jspecify.annotations.Nullable;

/**
 * A handle on a QP ({@code struct ib_uqp_object}): the QP itself, or for an XRC receive QP one
 * registration with it through {@code xrcd}. Multicast attachments belong to the handle, as the kernel
 * keeps them on the uobject.
 */
final class SimQp extends SimHandle implements QpHandle {

    record Attachment(Gid gid, int lid) {
    }

    private final SimContext context;
    final KernelQp qp;
    final @Nullable SimXrcd xrcd;
    final boolean opened;
    final Set<Attachment> attachments = new LinkedHashSet<>();
    /** The new post API of a QP created with send ops; null for another. */
    @Nullable SimQpExOps exOps;

    SimQp(SimContext context, KernelQp qp, @Nullable SimXrcd xrcd, boolean opened) {
        super(context.provider, context.device, KernelObjectKind.QP, qp.qpNum);
        this.context = context;
        this.qp = qp;
        this.xrcd = xrcd;
        this.opened = opened;
    }

    @Override
    SimContext context() {
        return context;
    }

    @Override
    public int qpNum() {
        return qp.qpNum;
    }

    @Override
    public QpType type() {
        return qp.type;
    }

    @Override
    public QpCapabilities capabilities() {
        return qp.reported;
    }

    @Override
    public String describe() {
        return super.describe() + (opened ? " (opened through ibv_open_qp)" : "");
    }
}
