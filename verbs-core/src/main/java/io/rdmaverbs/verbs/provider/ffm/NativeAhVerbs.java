package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.InlineVerbs.isNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.errnoOfNull;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.failure;
import static io.rdmaverbs.verbs.provider.ffm.VerbChecks.released;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.GlobalRoute;
import io.rdmaverbs.verbs.provider.AddressHandleVerbs;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.PdHandle;

/** The address handle verbs of {@link NativeVerbsProvider}: creating and destroying an address handle. */
final class NativeAhVerbs implements AddressHandleVerbs {

    private final NativeVerbsProvider provider;

    NativeAhVerbs(NativeVerbsProvider provider) {
        this.provider = provider;
    }

    @Override
    public AhHandle createAh(PdHandle pd, AddressVector address) {
        NativePd p = provider.live(pd, NativePd.class);
        MemorySegment state = CallState.current();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(IbvAhAttr.LAYOUT);
            IbvAhAttr.write(attr, 0, address);
            MemorySegment ah = Libibverbs.ibv_create_ah(state, p.pointer(), attr);
            if (isNull(ah)) {
                int errno = errnoOfNull(state);
                GlobalRoute route = address.globalRoute();
                throw failure("ibv_create_ah", p, errno, route != null
                        ? "no route to " + route.destinationGid() + " from GID index " + route.sourceGidIndex()
                                + " of port " + address.portNumber()
                                + " (RoCE needs a valid source GID and a reachable destination)"
                        : "could not create an address handle to LID " + address.destinationLid()
                                + " (a RoCE device needs a global route: use AddressVector.roce)");
            }
            return new NativeAh(provider, ah, p);
        }
    }

    @Override
    public void destroyAh(AhHandle ah) {
        NativeAh a = provider.live(ah, NativeAh.class);
        // No post naming it is in flight from here on, from any thread: ibv_destroy_ah(3) frees what they read.
        a.calls().destroyQuiesced(() -> {
            MemorySegment state = CallState.current();
            released("ibv_destroy_ah", a, Libibverbs.ibv_destroy_ah(state, a.pointer()), state,
                    "could not destroy the address handle",
                    "could not destroy the address handle");
        });
    }
}
