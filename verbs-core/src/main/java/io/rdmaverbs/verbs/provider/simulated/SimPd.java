package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.provider.PdHandle;

/** A protection domain; {@code usecnt} is the kernel's {@code pd->usecnt} (QPs, SRQs, MRs, AHs). */
final class SimPd extends SimHandle implements PdHandle {

    private final SimContext context;
    int usecnt;

    SimPd(SimContext context, long id) {
        super(context.provider, context.device, KernelObjectKind.PD, id);
        this.context = context;
    }

    @Override
    SimContext context() {
        return context;
    }
}
