package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.BE64;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U32;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U64;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.chars;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_device_attr}, filled by {@code ibv_query_device}. */
final class IbvDeviceAttr {

    /** {@code char fw_ver[64]}, NUL-terminated when shorter. */
    static final int FW_VER_LENGTH = 64;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            chars(FW_VER_LENGTH).withName("fw_ver"),
            BE64.withName("node_guid"),
            BE64.withName("sys_image_guid"),
            U64.withName("max_mr_size"),
            U64.withName("page_size_cap"),
            U32.withName("vendor_id"),
            U32.withName("vendor_part_id"),
            U32.withName("hw_ver"),
            C_INT.withName("max_qp"),
            C_INT.withName("max_qp_wr"),
            U32.withName("device_cap_flags"),
            C_INT.withName("max_sge"),
            C_INT.withName("max_sge_rd"),
            C_INT.withName("max_cq"),
            C_INT.withName("max_cqe"),
            C_INT.withName("max_mr"),
            C_INT.withName("max_pd"),
            C_INT.withName("max_qp_rd_atom"),
            C_INT.withName("max_ee_rd_atom"),
            C_INT.withName("max_res_rd_atom"),
            C_INT.withName("max_qp_init_rd_atom"),
            C_INT.withName("max_ee_init_rd_atom"),
            C_ENUM.withName("atomic_cap"),
            C_INT.withName("max_ee"),
            C_INT.withName("max_rdd"),
            C_INT.withName("max_mw"),
            C_INT.withName("max_raw_ipv6_qp"),
            C_INT.withName("max_raw_ethy_qp"),
            C_INT.withName("max_mcast_grp"),
            C_INT.withName("max_mcast_qp_attach"),
            C_INT.withName("max_total_mcast_qp_attach"),
            C_INT.withName("max_ah"),
            C_INT.withName("max_fmr"),
            C_INT.withName("max_map_per_fmr"),
            C_INT.withName("max_srq"),
            C_INT.withName("max_srq_wr"),
            C_INT.withName("max_srq_sge"),
            U16.withName("max_pkeys"),
            U8.withName("local_ca_ack_delay"),
            U8.withName("phys_port_cnt"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_device_attr");

    static final long FW_VER = Field.offset(LAYOUT, "fw_ver");
    static final Field.OfLong NODE_GUID = Field.ofLong(LAYOUT, "node_guid");
    static final Field.OfLong SYS_IMAGE_GUID = Field.ofLong(LAYOUT, "sys_image_guid");
    static final Field.OfLong MAX_MR_SIZE = Field.ofLong(LAYOUT, "max_mr_size");
    static final Field.OfLong PAGE_SIZE_CAP = Field.ofLong(LAYOUT, "page_size_cap");
    static final Field.OfInt VENDOR_ID = Field.ofInt(LAYOUT, "vendor_id");
    static final Field.OfInt VENDOR_PART_ID = Field.ofInt(LAYOUT, "vendor_part_id");
    static final Field.OfInt HW_VER = Field.ofInt(LAYOUT, "hw_ver");
    static final Field.OfInt MAX_QP = Field.ofInt(LAYOUT, "max_qp");
    static final Field.OfInt MAX_QP_WR = Field.ofInt(LAYOUT, "max_qp_wr");
    static final Field.OfInt DEVICE_CAP_FLAGS = Field.ofInt(LAYOUT, "device_cap_flags");
    static final Field.OfInt MAX_SGE = Field.ofInt(LAYOUT, "max_sge");
    static final Field.OfInt MAX_CQ = Field.ofInt(LAYOUT, "max_cq");
    static final Field.OfInt MAX_CQE = Field.ofInt(LAYOUT, "max_cqe");
    static final Field.OfInt MAX_MR = Field.ofInt(LAYOUT, "max_mr");
    static final Field.OfInt MAX_PD = Field.ofInt(LAYOUT, "max_pd");
    static final Field.OfInt MAX_QP_RD_ATOM = Field.ofInt(LAYOUT, "max_qp_rd_atom");
    static final Field.OfInt MAX_QP_INIT_RD_ATOM = Field.ofInt(LAYOUT, "max_qp_init_rd_atom");
    static final Field.OfInt ATOMIC_CAP = Field.ofInt(LAYOUT, "atomic_cap");
    static final Field.OfInt MAX_MCAST_GRP = Field.ofInt(LAYOUT, "max_mcast_grp");
    static final Field.OfInt MAX_MCAST_QP_ATTACH = Field.ofInt(LAYOUT, "max_mcast_qp_attach");
    static final Field.OfInt MAX_AH = Field.ofInt(LAYOUT, "max_ah");
    static final Field.OfInt MAX_SRQ = Field.ofInt(LAYOUT, "max_srq");
    static final Field.OfInt MAX_SRQ_WR = Field.ofInt(LAYOUT, "max_srq_wr");
    static final Field.OfInt MAX_SRQ_SGE = Field.ofInt(LAYOUT, "max_srq_sge");
    static final Field.OfByte PHYS_PORT_CNT = Field.ofByte(LAYOUT, "phys_port_cnt");

    /** {@code IBV_DEVICE_XRC} in {@code device_cap_flags}. */
    static final int IBV_DEVICE_XRC = 1 << 20;

    private IbvDeviceAttr() {
    }
}
