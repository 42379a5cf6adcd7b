package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * {@link CmEvent#decode} and {@link CmConnParam} on {@code rdma_cm_event}s laid out in memory as
 * librdmacm fills them: the private data is copied, so the record stays readable after the buffer
 * (librdmacm's until {@code rdma_ack_cm_event(3)}) is gone.
 */
class CmEventDecodingTest {

    @Test
    void aConnectRequestDecodesItsIdsStatusAndConnectionParametersAndOutlivesItsBuffer() {
        byte[] hello = "hello from the active side".getBytes(StandardCharsets.US_ASCII);
        CmEvent decoded;
        MemorySegment id;
        MemorySegment listenId;
        try (Arena librdmacm = Arena.ofConfined()) {
            id = cmId(librdmacm, RdmaCmId.RDMA_PS_TCP);
            listenId = cmId(librdmacm, RdmaCmId.RDMA_PS_TCP);
            MemorySegment event = event(librdmacm, RdmaCmEventType.CONNECT_REQUEST, 0, id, listenId);
            MemorySegment conn = event.asSlice(RdmaCmEvent.PARAM, RdmaConnParam.LAYOUT.byteSize());
            RdmaConnParam.PRIVATE_DATA.set(conn, librdmacm.allocateFrom(ValueLayout.JAVA_BYTE, hello));
            RdmaConnParam.PRIVATE_DATA_LEN.set(conn, (byte) hello.length);
            RdmaConnParam.RESPONDER_RESOURCES.set(conn, (byte) 16);
            RdmaConnParam.INITIATOR_DEPTH.set(conn, (byte) 255);
            RdmaConnParam.RNR_RETRY_COUNT.set(conn, (byte) 7);
            RdmaConnParam.QP_NUM.set(conn, 0x11);

            decoded = CmEvent.decode(MemorySegment.ofAddress(event.address()));
        }

        assertThat(decoded.type()).isEqualTo(RdmaCmEventType.CONNECT_REQUEST);
        assertThat(decoded.status()).isZero();
        assertThat(decoded.id().address()).isEqualTo(id.address());
        assertThat(decoded.listenId().address()).isEqualTo(listenId.address());
        CmConnParam conn = decoded.conn().orElseThrow();
        assertThat(conn.privateData()).isEqualTo(hello);
        assertThat(conn.responderResources()).isEqualTo(16);
        assertThat(conn.initiatorDepth()).as("uint8_t read unsigned").isEqualTo(255);
        assertThat(conn.rnrRetryCount()).isEqualTo(7);
        assertThat(conn.qpNum()).isEqualTo(0x11);
    }

    @Test
    void aRejectionKeepsTheReasonAsStatusAndThePeersPrivateData() {
        try (Arena librdmacm = Arena.ofConfined()) {
            MemorySegment event = event(librdmacm, RdmaCmEventType.REJECTED, CmEvent.IB_CM_REJ_CONSUMER_DEFINED,
                    cmId(librdmacm, RdmaCmId.RDMA_PS_TCP), MemorySegment.NULL);
            MemorySegment conn = event.asSlice(RdmaCmEvent.PARAM, RdmaConnParam.LAYOUT.byteSize());
            RdmaConnParam.PRIVATE_DATA.set(conn, librdmacm.allocateFrom(ValueLayout.JAVA_BYTE, new byte[] {4, 2}));
            RdmaConnParam.PRIVATE_DATA_LEN.set(conn, (byte) 2);

            CmEvent decoded = CmEvent.decode(event);

            assertThat(decoded.status()).isEqualTo(28);
            assertThat(decoded.conn().orElseThrow().privateData()).containsExactly(4, 2);
        }
    }

    @Test
    void anAddressErrorCarriesANegativeErrnoAndNoConnectionParameters() {
        try (Arena librdmacm = Arena.ofConfined()) {
            MemorySegment event = event(librdmacm, RdmaCmEventType.ADDR_ERROR, -110,
                    cmId(librdmacm, RdmaCmId.RDMA_PS_TCP), MemorySegment.NULL);

            CmEvent decoded = CmEvent.decode(event);

            assertThat(decoded.type()).isEqualTo(RdmaCmEventType.ADDR_ERROR);
            assertThat(decoded.status()).as("-ETIMEDOUT").isEqualTo(-110);
            assertThat(decoded.conn()).isEmpty();
        }
    }

    @Test
    void anEventOfAUdpIdIsNotReadAsConnectionParameters() {
        try (Arena librdmacm = Arena.ofConfined()) {
            MemorySegment event = event(librdmacm, RdmaCmEventType.ESTABLISHED, 0,
                    cmId(librdmacm, RdmaCmId.RDMA_PS_UDP), MemorySegment.NULL);
            RdmaUdParam.QKEY.set(event.asSlice(RdmaCmEvent.PARAM), RdmaCmId.RDMA_UDP_QKEY);

            assertThat(CmEvent.decode(event).conn()).isEmpty();
        }
    }

    @Test
    void anEventTypeNewerThanTheBindingIsRefusedByValue() {
        try (Arena librdmacm = Arena.ofConfined()) {
            MemorySegment event = event(librdmacm, RdmaCmEventType.ADDR_RESOLVED, 0,
                    cmId(librdmacm, RdmaCmId.RDMA_PS_TCP), MemorySegment.NULL);
            RdmaCmEvent.EVENT.set(event, 16);

            assertThatThrownBy(() -> CmEvent.decode(event)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("16");
        }
    }

    @Test
    void connectionParametersEncodeTheirPrivateDataAndRefuseMoreThanAUint8Holds() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment param = CmConnParam.of(new byte[] {1, 2, 3}, 4, 5).encode(arena);

            assertThat(Byte.toUnsignedInt(RdmaConnParam.PRIVATE_DATA_LEN.get(param))).isEqualTo(3);
            assertThat(RdmaConnParam.PRIVATE_DATA.get(param).reinterpret(3).toArray(ValueLayout.JAVA_BYTE))
                    .containsExactly(1, 2, 3);
            assertThat(RdmaConnParam.RESPONDER_RESOURCES.get(param)).isEqualTo((byte) 4);
            assertThat(RdmaConnParam.INITIATOR_DEPTH.get(param)).isEqualTo((byte) 5);
            assertThat(CmConnParam.of(new byte[0], 0, 0).encode(arena).get(ValueLayout.ADDRESS, 0))
                    .isEqualTo(MemorySegment.NULL);
        }
        assertThatThrownBy(() -> CmConnParam.of(new byte[256], 1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("255");
    }

    private static MemorySegment cmId(Arena arena, int portSpace) {
        MemorySegment id = arena.allocate(RdmaCmId.LAYOUT);
        RdmaCmId.PS.set(id, portSpace);
        return id;
    }

    private static MemorySegment event(Arena arena, RdmaCmEventType type, int status, MemorySegment id,
            MemorySegment listenId) {
        MemorySegment event = arena.allocate(RdmaCmEvent.LAYOUT);
        RdmaCmEvent.ID.set(event, id);
        RdmaCmEvent.LISTEN_ID.set(event, listenId);
        RdmaCmEvent.EVENT.set(event, type.ordinal());
        RdmaCmEvent.STATUS.set(event, status);
        return event;
    }
}
