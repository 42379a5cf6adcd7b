package io.rdmaverbs.verbs.attr;

/**
 * {@code struct rdma_conn_param} of {@code rdma_connect(3)} and {@code rdma_accept(3)}. The private data
 * length is a {@code uint8_t}, so at most 255 bytes here; the transport allows less, and the CM refuses
 * more with EINVAL: {@value #MAX_CONNECT_PRIVATE_DATA} bytes on connect and {@value #MAX_ACCEPT_PRIVATE_DATA}
 * on accept for RDMA_PS_TCP ({@value #MAX_REJECT_PRIVATE_DATA} on reject, the IB CM REJ size).
 *
 * @param privateData copied; empty for none
 * @param responderResources incoming RDMA reads/atomics the side accepts (0..255)
 * @param initiatorDepth outstanding RDMA reads/atomics the side issues (0..255)
 * @param retryCount transport retries (0..7)
 * @param rnrRetryCount RNR retries (0..7, 7 infinite)
 */
public record CmConnectionParams(byte[] privateData, int responderResources, int initiatorDepth, int retryCount,
        int rnrRetryCount) {

    /** {@code rdma_connect(3)}: 56 bytes for RDMA_PS_TCP (92 of the IB CM REQ less the 36 of the CM header). */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** {@code rdma_accept(3)}: 196 bytes for RDMA_PS_TCP (the IB CM REP). */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** {@code rdma_reject(3)}: 148 bytes (the IB CM REJ). */
    public static final int MAX_REJECT_PRIVATE_DATA = 148;
    /** {@code rdma_connect(3)}: 180 bytes for RDMA_PS_UDP (the SIDR REQ less the CM header). */
    public static final int MAX_UD_CONNECT_PRIVATE_DATA = 180;
    /** {@code rdma_accept(3)}: 136 bytes for RDMA_PS_UDP (the SIDR REP). */
    public static final int MAX_UD_ACCEPT_PRIVATE_DATA = 136;

    public CmConnectionParams {
        privateData = privateData.clone();
        if (privateData.length > 255) {
            throw new IllegalArgumentException("private data is at most 255 bytes (private_data_len is a uint8_t), was "
                    + privateData.length);
        }
        requireRange("responderResources", responderResources, 255);
        requireRange("initiatorDepth", initiatorDepth, 255);
        requireRange("retryCount", retryCount, 7);
        requireRange("rnrRetryCount", rnrRetryCount, 7);
    }

    /**
     * No private data, one read/atomic each way, 6 transport retries, infinite RNR retry. Not rping's 7
     * retries: soft-RoCE's completer reads a {@code retry_cnt} of 7 as "retry forever"
     * ({@code rxe_comp.c}: {@code if (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--;}), so a send to a
     * peer whose link was cut never completes with RETRY_EXC_ERR and the loss goes unnoticed (measured
     * between two rxe hosts: 13 retries in 30 s and no completion). With 6, a lost peer surfaces after
     * 7 transmissions of the CM's local ACK timeout (about 2.3 s each on rxe: about 16 s).
     */
    public static CmConnectionParams defaults() {
        return new CmConnectionParams(new byte[0], 1, 1, 6, 7);
    }

    public CmConnectionParams withPrivateData(byte[] data) {
        return new CmConnectionParams(data, responderResources, initiatorDepth, retryCount, rnrRetryCount);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    private static void requireRange(String name, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(name + " must be 0.." + max + ", was " + value);
        }
    }
}
