package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.GID;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.offset;

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

    static final long DGID = offset(LAYOUT, "dgid");
    static final long FLOW_LABEL = offset(LAYOUT, "flow_label");
    static final long SGID_INDEX = offset(LAYOUT, "sgid_index");
    static final long HOP_LIMIT = offset(LAYOUT, "hop_limit");
    static final long TRAFFIC_CLASS = offset(LAYOUT, "traffic_class");

    private IbvGlobalRoute() {
    }
}
