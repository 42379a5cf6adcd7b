package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.offset;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.GlobalRoute;

/** {@code struct ibv_ah_attr}: an address vector, for {@code ibv_create_ah} and {@code ibv_qp_attr.ah_attr}. */
final class IbvAhAttr {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            IbvGlobalRoute.LAYOUT.withName("grh"),
            U16.withName("dlid"),
            U8.withName("sl"),
            U8.withName("src_path_bits"),
            U8.withName("static_rate"),
            U8.withName("is_global"),
            U8.withName("port_num"),
            MemoryLayout.paddingLayout(1))
            .withName("ibv_ah_attr");

    static final long GRH = offset(LAYOUT, "grh");
    static final long DLID = offset(LAYOUT, "dlid");
    static final long SL = offset(LAYOUT, "sl");
    static final long SRC_PATH_BITS = offset(LAYOUT, "src_path_bits");
    static final long STATIC_RATE = offset(LAYOUT, "static_rate");
    static final long IS_GLOBAL = offset(LAYOUT, "is_global");
    static final long PORT_NUM = offset(LAYOUT, "port_num");

    private IbvAhAttr() {
    }

    /** Writes {@code address} as an {@code ibv_ah_attr} at {@code base} (the bytes are assumed zeroed). */
    static void write(MemorySegment segment, long base, AddressVector address) {
        segment.set(U16, base + DLID, (short) address.destinationLid());
        segment.set(U8, base + SL, (byte) address.serviceLevel());
        segment.set(U8, base + SRC_PATH_BITS, (byte) address.sourcePathBits());
        segment.set(U8, base + STATIC_RATE, (byte) address.staticRate());
        segment.set(U8, base + PORT_NUM, (byte) address.portNumber());
        GlobalRoute route = address.globalRoute();
        if (route != null) {
            segment.set(U8, base + IS_GLOBAL, (byte) 1);
            long grh = base + GRH;
            MemorySegment.copy(route.destinationGid().toBytes(), 0, segment, Layouts.U8, grh + IbvGlobalRoute.DGID,
                    16);
            segment.set(U32, grh + IbvGlobalRoute.FLOW_LABEL, route.flowLabel());
            segment.set(U8, grh + IbvGlobalRoute.SGID_INDEX, (byte) route.sourceGidIndex());
            segment.set(U8, grh + IbvGlobalRoute.HOP_LIMIT, (byte) route.hopLimit());
            segment.set(U8, grh + IbvGlobalRoute.TRAFFIC_CLASS, (byte) route.trafficClass());
        }
    }
}
