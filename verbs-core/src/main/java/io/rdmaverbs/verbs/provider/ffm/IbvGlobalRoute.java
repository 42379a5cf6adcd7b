package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.GID;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_global_route}: the GRH part of an address vector. */
final class IbvGlobalRoute {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            GID.withName("dgid"),
            U32.withName("flow_label"),
            U8.withName("sgid_index"),
            U8.withName("hop_limit"),
            U8.withName("traffic_class"),
            MemoryLayout.paddingLayout(1))
            .withName("ibv_global_route");

    static final long DGID = Field.offset(LAYOUT, "dgid");
    static final Field.OfInt FLOW_LABEL = Field.ofInt(LAYOUT, "flow_label");
    static final Field.OfByte SGID_INDEX = Field.ofByte(LAYOUT, "sgid_index");
    static final Field.OfByte HOP_LIMIT = Field.ofByte(LAYOUT, "hop_limit");
    static final Field.OfByte TRAFFIC_CLASS = Field.ofByte(LAYOUT, "traffic_class");

    private IbvGlobalRoute() {
    }
}
