package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.offset;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_sge}: one scatter/gather entry. */
final class IbvSge {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("addr"),
            U32.withName("length"),
            U32.withName("lkey"))
            .withName("ibv_sge");

    static final long SIZE = LAYOUT.byteSize();
    static final long ADDR = offset(LAYOUT, "addr");
    static final long LENGTH = offset(LAYOUT, "length");
    static final long LKEY = offset(LAYOUT, "lkey");

    private IbvSge() {
    }
}
