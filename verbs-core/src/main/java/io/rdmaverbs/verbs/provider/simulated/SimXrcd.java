package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.provider.XrcdHandle;

/**
 * One context's handle on an XRC domain ({@code struct ib_uxrcd_object}). {@code usecnt} is the
 * handle's {@code refcnt}: the XRC receive QP registrations (created or opened) and XRC SRQs made
 * through it, which make {@code ibv_close_xrcd} fail with EBUSY.
 */
final class SimXrcd extends SimHandle implements XrcdHandle {

    private final SimContext context;
    final KernelXrcd domain;
    int usecnt;

    SimXrcd(SimContext context, long id, KernelXrcd domain) {
        super(context.provider, context.device, KernelObjectKind.XRCD, id);
        this.context = context;
        this.domain = domain;
    }

    @Override
    SimContext context() {
        return context;
    }

    @Override
    public String describe() {
        return super.describe() + (domain.inode == null ? " (private domain)" : " (domain " + domain.id + ")");
    }
}
