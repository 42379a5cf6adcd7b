package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_xrcd}: {@code ibv_close_xrcd} finds the context (and its op) through it. */
final class IbvXrcd {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"))
            .withName("ibv_xrcd");

    static final Field.OfAddress CONTEXT = Field.ofAddress(LAYOUT, "context");

    private IbvXrcd() {
    }
}
