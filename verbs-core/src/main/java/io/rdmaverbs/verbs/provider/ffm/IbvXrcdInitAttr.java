package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_xrcd_init_attr}, for {@code ibv_open_xrcd}. */
final class IbvXrcdInitAttr {

    static final int IBV_XRCD_INIT_ATTR_FD = 1;
    static final int IBV_XRCD_INIT_ATTR_OFLAGS = 1 << 1;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("comp_mask"),
            C_INT.withName("fd"),
            C_INT.withName("oflags"))
            .withName("ibv_xrcd_init_attr");

    static final Field.OfInt COMP_MASK = Field.ofInt(LAYOUT, "comp_mask");
    static final Field.OfInt FD = Field.ofInt(LAYOUT, "fd");
    static final Field.OfInt OFLAGS = Field.ofInt(LAYOUT, "oflags");

    private IbvXrcdInitAttr() {
    }
}
