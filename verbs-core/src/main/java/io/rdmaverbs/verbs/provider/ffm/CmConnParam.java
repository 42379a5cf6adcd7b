package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_conn_param} as values: what {@code rdma_connect(3)} and {@code rdma_accept(3)}
 * send and what a connection event carries. The private data is a copy, never librdmacm's buffer.
 *
 * @param privateData at most 255 bytes ({@code private_data_len} is a {@code uint8_t}); the transport
 *        allows less (IB CM: 56 on connect, 196 on accept) and the kernel answers {@code EINVAL} beyond it
 * @param responderResources outstanding RDMA reads/atomics this side accepts as target
 * @param initiatorDepth outstanding RDMA reads/atomics this side issues
 * @param flowControl whether the hardware flow control is used (0 or 1)
 * @param retryCount transport retries; ignored on accept
 * @param rnrRetryCount receiver-not-ready retries, 7 meaning infinite
 * @param srq whether the peer uses an SRQ; ignored when the id has a QP
 * @param qpNum the QP number to announce; ignored when the id has a QP
 */
record CmConnParam(byte[] privateData, int responderResources, int initiatorDepth, int flowControl,
        int retryCount, int rnrRetryCount, boolean srq, int qpNum) {

    static final int MAX_PRIVATE_DATA = 0xFF;

    CmConnParam {
        privateData = privateData.clone();
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data of " + privateData.length
                    + " bytes does not fit rdma_conn_param.private_data_len (at most 255)");
        }
        for (int value : new int[] {responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount}) {
            if (value < 0 || value > 0xFF) {
                throw new IllegalArgumentException(
                        "rdma_conn_param members are uint8_t; " + value + " is out of range");
            }
        }
    }

    /** Private data and the given depths, with librdmacm's usual retry counts (7, 7). */
    static CmConnParam of(byte[] privateData, int responderResources, int initiatorDepth) {
        return new CmConnParam(privateData, responderResources, initiatorDepth, 0, 7, 7, false, 0);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /** An {@code rdma_conn_param} in {@code arena}, its private data copied next to it. */
    MemorySegment encode(Arena arena) {
        MemorySegment param = arena.allocate(RdmaConnParam.LAYOUT);
        RdmaConnParam.PRIVATE_DATA.set(param, privateData.length == 0 ? MemorySegment.NULL
                : arena.allocateFrom(ValueLayout.JAVA_BYTE, privateData));
        RdmaConnParam.PRIVATE_DATA_LEN.set(param, (byte) privateData.length);
        RdmaConnParam.RESPONDER_RESOURCES.set(param, (byte) responderResources);
        RdmaConnParam.INITIATOR_DEPTH.set(param, (byte) initiatorDepth);
        RdmaConnParam.FLOW_CONTROL.set(param, (byte) flowControl);
        RdmaConnParam.RETRY_COUNT.set(param, (byte) retryCount);
        RdmaConnParam.RNR_RETRY_COUNT.set(param, (byte) rnrRetryCount);
        RdmaConnParam.SRQ.set(param, (byte) (srq ? 1 : 0));
        RdmaConnParam.QP_NUM.set(param, qpNum);
        return param;
    }

    /** Copies {@code param} (an {@code rdma_conn_param} at {@code base} of {@code event}) out of librdmacm's memory. */
    static CmConnParam decode(MemorySegment event, long base) {
        MemorySegment param = event.asSlice(base, RdmaConnParam.LAYOUT.byteSize());
        return new CmConnParam(
                PrivateData.copy(RdmaConnParam.PRIVATE_DATA.get(param), RdmaConnParam.PRIVATE_DATA_LEN.get(param)),
                Byte.toUnsignedInt(RdmaConnParam.RESPONDER_RESOURCES.get(param)),
                Byte.toUnsignedInt(RdmaConnParam.INITIATOR_DEPTH.get(param)),
                Byte.toUnsignedInt(RdmaConnParam.FLOW_CONTROL.get(param)),
                Byte.toUnsignedInt(RdmaConnParam.RETRY_COUNT.get(param)),
                Byte.toUnsignedInt(RdmaConnParam.RNR_RETRY_COUNT.get(param)),
                RdmaConnParam.SRQ.get(param) != 0,
                RdmaConnParam.QP_NUM.get(param));
    }
}
