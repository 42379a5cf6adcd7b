package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;

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

    static final long GRH = Field.offset(LAYOUT, "grh");
    static final Field.OfShort DLID = Field.ofShort(LAYOUT, "dlid");
    static final Field.OfByte SL = Field.ofByte(LAYOUT, "sl");
    static final Field.OfByte SRC_PATH_BITS = Field.ofByte(LAYOUT, "src_path_bits");
    static final Field.OfByte STATIC_RATE = Field.ofByte(LAYOUT, "static_rate");
    static final Field.OfByte IS_GLOBAL = Field.ofByte(LAYOUT, "is_global");
    static final Field.OfByte PORT_NUM = Field.ofByte(LAYOUT, "port_num");

    private IbvAhAttr() {
    }

    /** Writes {@code address} as an {@code ibv_ah_attr} at {@code base} (the bytes are assumed zeroed). */
    static void write(MemorySegment segment, long base, AddressVector address) {
        DLID.set(segment, base, (short) address.destinationLid());
        SL.set(segment, base, (byte) address.serviceLevel());
        SRC_PATH_BITS.set(segment, base, (byte) address.sourcePathBits());
        STATIC_RATE.set(segment, base, (byte) address.staticRate());
        PORT_NUM.set(segment, base, (byte) address.portNumber());
        GlobalRoute route = address.globalRoute();
        if (route != null) {
            IS_GLOBAL.set(segment, base, (byte) 1);
            long grh = base + GRH;
            MemorySegment.copy(route.destinationGid().toBytes(), 0, segment, Layouts.U8, grh + IbvGlobalRoute.DGID,
                    16);
            IbvGlobalRoute.FLOW_LABEL.set(segment, grh, route.flowLabel());
            IbvGlobalRoute.SGID_INDEX.set(segment, grh, (byte) route.sourceGidIndex());
            IbvGlobalRoute.HOP_LIMIT.set(segment, grh, (byte) route.hopLimit());
            IbvGlobalRoute.TRAFFIC_CLASS.set(segment, grh, (byte) route.trafficClass());
        }
    }
}
