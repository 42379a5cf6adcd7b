package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcFlag;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;

/**
 * The kernel driver (with its rdma-core provider) whose answers a simulated device reproduces where
 * drivers differ from each other or from the IB specification. Everything driver-specific is decided
 * here, so that a difference found by the soft-RoCE comparison is fixed in one method.
 *
 * <p>{@link #RXE} answers were observed on Debian's kernel 6.1.0 with rdma-core 44 and a soft-RoCE
 * device on a dummy netdev (the project's {@code tools/softroce} harness), with a C program that
 * exercised each case. {@link #MLX5} answers follow the IB specification and the mlx5 sources; they
 * were not observed on hardware and are assumptions.
 */
public enum Driver {
    /** Soft-RoCE ({@code rdma_rxe}). */
    RXE,
    /** ConnectX ({@code mlx5_ib}). */
    MLX5;

    /**
     * The errno when a device limit ({@code max_pd}, {@code max_qp}, ...) is reached. rxe's object pools
     * answer EINVAL ({@code __rxe_add_to_pool}; observed for {@code max_ah}); its MR pool answers ENOMEM.
     * mlx5's firmware answers a resource-limit error that the driver maps to ENOMEM.
     */
    Errno exhausted(KernelObjectKind kind) {
        return this == RXE && kind != KernelObjectKind.MR ? Errno.EINVAL : Errno.ENOMEM;
    }

    /** {@code ibv_create_srq_ex} of an XRC SRQ on a device without XRC: rxe answers EINVAL (observed). */
    Errno xrcSrqUnsupported() {
        return this == RXE ? Errno.EINVAL : Errno.EOPNOTSUPP;
    }

    /** {@code ibv_reg_mr} with {@code IBV_ACCESS_ON_DEMAND} on a device without ODP: rxe answers EINVAL (observed). */
    Errno onDemandPagingUnsupported() {
        return this == RXE ? Errno.EINVAL : Errno.EOPNOTSUPP;
    }

    /** The requester's status when one of its own SGEs fails the lkey check: rxe LOC_QP_OP_ERR (observed). */
    WcStatus localKeyFault() {
        return this == RXE ? WcStatus.LOC_QP_OP_ERR : WcStatus.LOC_PROT_ERR;
    }

    /** The responder's status when a receive SGE fails the lkey check: rxe LOC_QP_OP_ERR (observed). */
    WcStatus receiveBufferFault() {
        return this == RXE ? WcStatus.LOC_QP_OP_ERR : WcStatus.LOC_PROT_ERR;
    }

    /**
     * The responder's status when the message is longer than the receive WR's buffers: rxe treats it as
     * a malformed WQE, LOC_QP_OP_ERR (observed); the IB specification says LOC_LEN_ERR.
     */
    WcStatus receiveTooShort() {
        return this == RXE ? WcStatus.LOC_QP_OP_ERR : WcStatus.LOC_LEN_ERR;
    }

    /** The requester's status for a responder-side receive error: the NAK the responder sends back. */
    WcStatus requesterStatusFor(WcStatus responderStatus) {
        return responderStatus == WcStatus.LOC_LEN_ERR ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_OP_ERR;
    }

    /**
     * The requester's status when the responder QP was not enabled for the RDMA operation (its
     * {@code qp_access_flags}): rxe NAKs it as an invalid request, REM_INV_REQ_ERR (observed).
     */
    WcStatus remoteAccessNotEnabled() {
        return this == RXE ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_ACCESS_ERR;
    }

    /** {@code wc_flags} of a successful receive completion: rxe sets GRH on every one of them (observed, RC too). */
    int receiveFlags(boolean grhPresent, boolean withImmediate) {
        int flags = withImmediate ? WcFlag.WITH_IMM : 0;
        return this == RXE || grhPresent ? flags | WcFlag.GRH : flags;
    }

    /** {@code src_qp} of a receive completion: rxe fills it only for UD (observed 0 on RC). */
    int receiveSourceQp(QpType receiverType, int senderQpNum) {
        return this == RXE && receiverType != QpType.UD ? 0 : senderQpNum;
    }

    /** {@code wc_flags} of a successful send completion: rxe sets WITH_IMM for the *_WITH_IMM opcodes (observed). */
    int sendFlags(SendOpcode opcode) {
        return this == RXE && opcode.carriesImmediate() ? WcFlag.WITH_IMM : 0;
    }

    /**
     * A UD message longer than the path MTU: rxe completes it successfully and sends nothing (C10-93.1.1,
     * observed); mlx5 completes it with LOC_LEN_ERR (assumed).
     */
    boolean dropsOversizedDatagrams() {
        return this == RXE;
    }

    /**
     * Whether a multicast datagram reaches QPs of the sending device itself. rxe does not loop multicast
     * back to its own netdev (it joins the group at L2 only, so the IPv6 stack never loops it back;
     * observed: no local delivery); other rxe devices on the fabric do receive it. HCAs loop multicast
     * back unless the QP was created with multicast loopback blocked.
     */
    boolean loopsBackMulticast() {
        return this != RXE;
    }

    /**
     * The {@code wc_flags} {@code ibv_create_cq_ex} accepts; any other bit fails the create with
     * EOPNOTSUPP. rdma-core 44's rxe ({@code RXE_SUP_WC_EX_FLAGS}) reports the standard fields and no
     * timestamp; mlx5 adds the completion timestamps (assumed, as for all of MLX5).
     */
    long supportedWcFlags() {
        long standard = CompletionField.mask(CompletionField.STANDARD);
        return this == RXE ? standard : standard | CompletionField.COMPLETION_TIMESTAMP.bit()
                | CompletionField.COMPLETION_TIMESTAMP_WALLCLOCK.bit();
    }

    /**
     * The {@code send_ops_flags} ({@code 1 << ibv_wr_opcode} bits) a QP of {@code type} can be created
     * with; any other bit fails the create with EOPNOTSUPP. rdma-core 44's rxe ({@code check_qp_init_attr}):
     * RC every operation this binding has, UC no RDMA read and no atomics, UD SEND and SEND_WITH_IMM, and no
     * XRC at all. mlx5 (assumed) as rxe, and XRC send QPs as RC.
     */
    long supportedSendOps(QpType type) {
        long sends = bit(SendOpcode.SEND) | bit(SendOpcode.SEND_WITH_IMM);
        long writes = bit(SendOpcode.RDMA_WRITE) | bit(SendOpcode.RDMA_WRITE_WITH_IMM);
        long rc = sends | writes | bit(SendOpcode.RDMA_READ) | bit(SendOpcode.ATOMIC_CMP_AND_SWP)
                | bit(SendOpcode.ATOMIC_FETCH_AND_ADD);
        return switch (type) {
            case RC -> rc;
            case UC -> sends | writes;
            case UD -> sends;
            case XRC_SEND -> this == RXE ? 0 : rc;
            case XRC_RECV -> 0;
        };
    }

    private static long bit(SendOpcode op) {
        return 1L << op.value();
    }

    /**
     * Receive WRs posted to a QP already in the error state: rxe 6.1 queues them and never flushes them
     * (observed); the specification (and mlx5) flush them at once.
     */
    boolean flushesReceivesPostedInError() {
        return this != RXE;
    }

    /**
     * Whether a completion fires a CQ armed with {@code solicited_only}. rxe passes "solicited" only for
     * receive completions whose message had the SE bit, and for flushed receives; send completions, even
     * errors, never fire it (observed). The specification fires it for error completions as well.
     */
    boolean firesSolicitedEvent(boolean receiveSide, boolean solicitedBit, WcStatus status) {
        if (this == RXE) {
            return receiveSide && (solicitedBit || status == WcStatus.WR_FLUSH_ERR);
        }
        return solicitedBit || status != WcStatus.SUCCESS;
    }

    /** Slots actually allocated for a queue of {@code requested} entries: rxe and mlx5 round to 2^n - 1. */
    static int queueSlots(int requested) {
        if (requested <= 0) {
            return 0;
        }
        int n = requested + 1;
        int p = Integer.highestOneBit(n);
        return (p == n ? p : p << 1) - 1;
    }

    /**
     * The capabilities {@code ibv_create_qp} writes back. rxe reports the requested WR counts (it rounds
     * the queues internally: {@code ibv_query_qp} shows the rounding) and sizes the send WQE to hold
     * either the SGEs or the inline data: both are reported from that size (observed: sge 1, inline 0
     * gives sge 1, inline 16; inline 512 gives sge 32). mlx5 reports the rounded queues.
     */
    QpCapabilities granted(QpCapabilities requested) {
        if (this == RXE) {
            int wqe = Math.max(requested.maxSendSge() * 16, requested.maxInlineData());
            return new QpCapabilities(requested.maxSendWr(), requested.maxRecvWr(), wqe / 16, requested.maxRecvSge(),
                    wqe);
        }
        return new QpCapabilities(queueSlots(requested.maxSendWr()), queueSlots(requested.maxRecvWr()),
                requested.maxSendSge(), requested.maxRecvSge(), requested.maxInlineData());
    }

    /** The rkey of a new MR: rxe gives 0 when no remote access was asked for (observed); mlx5 the lkey. */
    int rkey(int lkey, int access) {
        boolean remote = (access & (AccessFlag.REMOTE_READ.bit() | AccessFlag.REMOTE_WRITE.bit()
                | AccessFlag.REMOTE_ATOMIC.bit())) != 0;
        return this == RXE && !remote ? 0 : lkey;
    }

    /** The first QP number a fresh device hands out: rxe's pool starts at 16 and GSI takes it (observed 17). */
    int firstQpNumber() {
        return this == RXE ? 17 : 0x1a4;
    }

    /**
     * Whether the responder drops RC/UC packets whose addresses do not match its own path (rxe's
     * {@code check_addr}: the packet's source must be the QP's destination GID and vice versa).
     */
    boolean checksConnectedSourceAddress() {
        return this == RXE;
    }

    /** The hop limit in the GRH of a received datagram: rxe sends with the stack's 64 (observed). */
    int datagramHopLimit(int addressHopLimit) {
        return this == RXE ? 64 : addressHopLimit;
    }
}
