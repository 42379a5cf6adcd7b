package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_port_attr}, filled by {@code ibv_query_port}. Its size is passed to the
 * provider's {@code query_port} op, which fills no more than that.
 */
final class IbvPortAttr {

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            C_ENUM.withName("state"),
            C_ENUM.withName("max_mtu"),
            C_ENUM.withName("active_mtu"),
            C_INT.withName("gid_tbl_len"),
            U32.withName("port_cap_flags"),
            U32.withName("max_msg_sz"),
            U32.withName("bad_pkey_cntr"),
            U32.withName("qkey_viol_cntr"),
            U16.withName("pkey_tbl_len"),
            U16.withName("lid"),
            U16.withName("sm_lid"),
            U8.withName("lmc"),
            U8.withName("max_vl_num"),
            U8.withName("sm_sl"),
            U8.withName("subnet_timeout"),
            U8.withName("init_type_reply"),
            U8.withName("active_width"),
            U8.withName("active_speed"),
            U8.withName("phys_state"),
            U8.withName("link_layer"),
            U8.withName("flags"),
            U16.withName("port_cap_flags2"),
            MemoryLayout.paddingLayout(2))
            .withName("ibv_port_attr");

    static final Field.OfInt STATE = Field.ofInt(LAYOUT, "state");
    static final Field.OfInt MAX_MTU = Field.ofInt(LAYOUT, "max_mtu");
    static final Field.OfInt ACTIVE_MTU = Field.ofInt(LAYOUT, "active_mtu");
    static final Field.OfInt GID_TBL_LEN = Field.ofInt(LAYOUT, "gid_tbl_len");
    static final Field.OfInt PORT_CAP_FLAGS = Field.ofInt(LAYOUT, "port_cap_flags");
    static final Field.OfInt MAX_MSG_SZ = Field.ofInt(LAYOUT, "max_msg_sz");
    static final Field.OfShort PKEY_TBL_LEN = Field.ofShort(LAYOUT, "pkey_tbl_len");
    static final Field.OfShort LID = Field.ofShort(LAYOUT, "lid");
    static final Field.OfShort SM_LID = Field.ofShort(LAYOUT, "sm_lid");
    static final Field.OfByte LMC = Field.ofByte(LAYOUT, "lmc");
    static final Field.OfByte ACTIVE_WIDTH = Field.ofByte(LAYOUT, "active_width");
    static final Field.OfByte ACTIVE_SPEED = Field.ofByte(LAYOUT, "active_speed");
    static final Field.OfByte PHYS_STATE = Field.ofByte(LAYOUT, "phys_state");
    static final Field.OfByte LINK_LAYER = Field.ofByte(LAYOUT, "link_layer");

    private IbvPortAttr() {
    }
}
