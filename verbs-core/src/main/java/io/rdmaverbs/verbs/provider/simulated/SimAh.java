package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.provider.AhHandle;

/** An address handle: where a UD send goes. */
final class SimAh extends SimHandle implements AhHandle {

    private final SimContext context;
    final SimPd pd;
    final AddressVector address;

    SimAh(SimContext context, long id, SimPd pd, AddressVector address) {
        super(context.provider, context.device, KernelObjectKind.AH, id);
        this.context = context;
        this.pd = pd;
        this.address = address;
    }

    @Override
    SimContext context() {
        return context;
    }
}
