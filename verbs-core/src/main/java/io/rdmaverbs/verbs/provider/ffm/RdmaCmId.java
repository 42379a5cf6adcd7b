package io.rdmaverbs.verbs.provider.ffm;

import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_ENUM;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.C_INT;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.GID;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U16;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.U8;
import static io.rdmaverbs.verbs.provider.ffm.Layouts.chars;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.nio.ByteOrder;

/**
 * {@code struct rdma_cm_id} of {@code <rdma/rdma_cma.h>}, with the {@code struct rdma_route} and
 * {@code struct rdma_addr} it embeds. librdmacm owns the struct and writes it: {@code verbs} is the
 * {@code ibv_context} librdmacm opened itself (never to be closed with {@code ibv_close_device}),
 * {@code qp} is set by {@code rdma_create_qp(3)}, and the addresses are filled by bind, resolve and
 * connection requests ({@code rdma_get_local_addr}/{@code rdma_get_peer_addr} are static inline
 * reads of {@code route.addr.src_addr}/{@code dst_addr}).
 */
final class RdmaCmId {

    /** {@code RDMA_PS_*} of {@code enum rdma_port_space}: TCP is reliable connected, UDP unreliable datagram. */
    static final int RDMA_PS_IPOIB = 0x0002;
    static final int RDMA_PS_TCP = 0x0106;
    static final int RDMA_PS_UDP = 0x0111;
    static final int RDMA_PS_IB = 0x013F;

    /** The Q_Key every {@code RDMA_PS_UDP} id uses. */
    static final int RDMA_UDP_QKEY = 0x01234567;

    private static final StructLayout SOCKADDR = MemoryLayout.structLayout(
            U16.withName("sa_family"),
            chars(14).withName("sa_data"))
            .withName("sockaddr");

    private static UnionLayout anyAddress(String prefix) {
        return MemoryLayout.unionLayout(
                SOCKADDR.withName(prefix + "_addr"),
                SockaddrIn.LAYOUT.withName(prefix + "_sin"),
                SockaddrIn6.LAYOUT.withName(prefix + "_sin6"),
                SockaddrStorage.LAYOUT.withName(prefix + "_storage"));
    }

    /** {@code struct rdma_ib_addr}: the GIDs and P_Key of an IB or RoCE route. */
    private static final StructLayout IB_ADDR = MemoryLayout.structLayout(
            GID.withName("sgid"),
            GID.withName("dgid"),
            JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).withName("pkey"),
            MemoryLayout.paddingLayout(6))
            .withName("rdma_ib_addr");

    /** {@code struct rdma_addr}: source and destination in anonymous unions of every family. */
    static final StructLayout ADDR = MemoryLayout.structLayout(
            anyAddress("src"),
            anyAddress("dst"),
            MemoryLayout.unionLayout(IB_ADDR.withName("ibaddr")).withName("addr"))
            .withName("rdma_addr");

    /** {@code struct rdma_route}. */
    static final StructLayout ROUTE = MemoryLayout.structLayout(
            ADDR.withName("addr"),
            ADDRESS.withName("path_rec"),
            C_INT.withName("num_paths"),
            MemoryLayout.paddingLayout(4))
            .withName("rdma_route");

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("verbs"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("context"),
            ADDRESS.withName("qp"),
            ROUTE.withName("route"),
            C_ENUM.withName("ps"),
            U8.withName("port_num"),
            MemoryLayout.paddingLayout(3),
            ADDRESS.withName("event"),
            ADDRESS.withName("send_cq_channel"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq_channel"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            ADDRESS.withName("pd"),
            C_ENUM.withName("qp_type"),
            MemoryLayout.paddingLayout(4))
            .withName("rdma_cm_id");

    static final Field.OfAddress VERBS = Field.ofAddress(LAYOUT, "verbs");
    static final Field.OfAddress CHANNEL = Field.ofAddress(LAYOUT, "channel");
    static final Field.OfAddress CONTEXT = Field.ofAddress(LAYOUT, "context");
    static final Field.OfAddress QP = Field.ofAddress(LAYOUT, "qp");
    /** {@code &id->route.addr.src_addr}: what {@code rdma_get_local_addr} returns. */
    static final long SRC_ADDR = Field.offset(LAYOUT, "route", "addr");
    /** {@code &id->route.addr.dst_addr}: what {@code rdma_get_peer_addr} returns. */
    static final long DST_ADDR = SRC_ADDR + SockaddrStorage.LAYOUT.byteSize();
    static final Field.OfInt NUM_PATHS = Field.ofInt(LAYOUT, "route", "num_paths");
    static final Field.OfInt PS = Field.ofInt(LAYOUT, "ps");
    static final Field.OfByte PORT_NUM = Field.ofByte(LAYOUT, "port_num");
    static final Field.OfAddress PD = Field.ofAddress(LAYOUT, "pd");
    static final Field.OfInt QP_TYPE = Field.ofInt(LAYOUT, "qp_type");

    private RdmaCmId() {
    }
}
