package io.rdmaverbs.verbs.provider.simulated;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.AhHandle;
import io.rdmaverbs.verbs.provider.QpExOps;
import io.rdmaverbs.verbs.provider.QueueLock;

import org.jspecify.annotations.Nullable;

/**
 * The new post API of one simulated QP, as rdma-core 44's rxe builds it: {@code wr_start} takes the
 * send queue (the QP's {@link QueueLock} here, as in the native provider; rxe's spinlock there), each builder
 * adds a WQE and the setters change the last one, {@code wr_abort} drops them, and {@code wr_complete} posts them all or none: ENOSPC when
 * the queue has no room for them ({@code check_qp_queue_full}), EINVAL when the doorbell finds the QP
 * not ready to send, as for {@code ibv_post_send}. An operation the QP was not created for has no builder.
 */
final class SimQpExOps implements QpExOps {

    /** One WQE being built; the builders' fields as {@link PostedSend} will hold them. */
    private static final class Wqe {
        long wrId;
        int flags;
        SendOpcode opcode = SendOpcode.SEND;
        long[] addresses = new long[0];
        int[] lengths = new int[0];
        int[] lkeys = new int[0];
        byte @Nullable [] inline;
        int immediate;
        long remoteAddress;
        int rkey;
        long compareAdd;
        long swap;
        @Nullable SimAh ah;
        int remoteQpn;
        int remoteQkey;
        int xrcSrqn;

        PostedSend posted() {
            return new PostedSend(wrId, opcode, flags, addresses, lengths, lkeys, inline, immediate, remoteAddress, rkey,
                    compareAdd, swap, ah, remoteQpn, remoteQkey, xrcSrqn);
        }
    }

    /** The builder verb of each operation, as the native provider's refusals name it. */
    private static final Map<SendOpcode, String> BUILDERS = Map.of(SendOpcode.SEND, "ibv_wr_send",
            SendOpcode.SEND_WITH_IMM, "ibv_wr_send_imm", SendOpcode.RDMA_WRITE, "ibv_wr_rdma_write",
            SendOpcode.RDMA_WRITE_WITH_IMM, "ibv_wr_rdma_write_imm", SendOpcode.RDMA_READ, "ibv_wr_rdma_read",
            SendOpcode.ATOMIC_FETCH_AND_ADD, "ibv_wr_atomic_fetch_add", SendOpcode.ATOMIC_CMP_AND_SWP,
            "ibv_wr_atomic_cmp_swp");

    private final SimUverbs uverbs;
    private final SimQp qp;
    private final long sendOpsFlags;
    final QueueLock session;
    private final List<Wqe> building = new ArrayList<>();
    private long wrId;
    private int wrFlags;

    SimQpExOps(SimUverbs uverbs, SimQp qp, long sendOpsFlags) {
        this.uverbs = uverbs;
        this.qp = qp;
        this.sendOpsFlags = sendOpsFlags;
        this.session = new QueueLock(qp, QueueLock.Kind.SESSION);
    }

    @Override
    public void wrStart() {
        if (!session.take("ibv_wr_start")) {
            throw new IllegalStateException(qp.describe() + (qp.isDestroyed() ? " was already destroyed"
                    : " is being destroyed"));
        }
        building.clear();
    }

    @Override
    public int wrComplete() {
        requireStarted("ibv_wr_complete");
        try {
            return uverbs.onFabric(() -> {
                KernelQp q = qp.qp;
                SimDevice d = qp.device;
                if (d.fatal || q.destroyed) {
                    return Errno.EIO.number();
                }
                if (q.sendQueue.size() + building.size() > q.sendSlots) {
                    return Errno.ENOSPC.number();
                }
                if (q.state == QpState.RESET || q.state == QpState.INIT || q.state == QpState.RTR) {
                    return Errno.EINVAL.number();
                }
                for (Wqe w : building) {
                    uverbs.fabric.submit(q, w.posted());
                }
                return 0;
            });
        } finally {
            building.clear();
            session.release();
        }
    }

    @Override
    public void wrAbort() {
        requireStarted("ibv_wr_abort");
        building.clear();
        session.release();
    }

    @Override
    public void wrId(long id) {
        requireStarted("qpx->wr_id");
        wrId = id;
    }

    @Override
    public void wrFlags(int flags) {
        requireStarted("qpx->wr_flags");
        wrFlags = flags;
    }

    @Override
    public void send() {
        build(SendOpcode.SEND);
    }

    @Override
    public void sendImm(int imm) {
        build(SendOpcode.SEND_WITH_IMM).immediate = imm;
    }

    @Override
    public void rdmaWrite(int rkey, long remoteAddress) {
        remote(build(SendOpcode.RDMA_WRITE), rkey, remoteAddress);
    }

    @Override
    public void rdmaWriteImm(int rkey, long remoteAddress, int imm) {
        remote(build(SendOpcode.RDMA_WRITE_WITH_IMM), rkey, remoteAddress).immediate = imm;
    }

    @Override
    public void rdmaRead(int rkey, long remoteAddress) {
        remote(build(SendOpcode.RDMA_READ), rkey, remoteAddress);
    }

    @Override
    public void atomicFetchAdd(int rkey, long remoteAddress, long add) {
        remote(build(SendOpcode.ATOMIC_FETCH_AND_ADD), rkey, remoteAddress).compareAdd = add;
    }

    @Override
    public void atomicCmpSwp(int rkey, long remoteAddress, long compare, long swap) {
        Wqe w = remote(build(SendOpcode.ATOMIC_CMP_AND_SWP), rkey, remoteAddress);
        w.compareAdd = compare;
        w.swap = swap;
    }

    /** rxe's {@code wr_set_sge}: a zero length leaves the WQE without entries. */
    @Override
    public void setSge(int lkey, long address, int length) {
        Wqe w = last("ibv_wr_set_sge");
        if (length != 0) {
            w.addresses = new long[] {address};
            w.lengths = new int[] {length};
            w.lkeys = new int[] {lkey};
        }
    }

    @Override
    public void setSgeList(int count, long[] addresses, int[] lengths, int[] lkeys) {
        Wqe w = last("ibv_wr_set_sge_list");
        w.addresses = Arrays.copyOf(addresses, count);
        w.lengths = Arrays.copyOf(lengths, count);
        w.lkeys = Arrays.copyOf(lkeys, count);
    }

    @Override
    public void setUdAddr(AhHandle ah, int remoteQpn, int remoteQkey) {
        Wqe w = last("ibv_wr_set_ud_addr");
        w.ah = uverbs.own(ah, SimAh.class);
        w.remoteQpn = remoteQpn;
        w.remoteQkey = remoteQkey;
    }

    @Override
    public void setXrcSrqn(int remoteSrqn) {
        last("ibv_wr_set_xrc_srqn").xrcSrqn = remoteSrqn;
    }

    @Override
    public void setInlineData(long address, int length) {
        Wqe w = last("ibv_wr_set_inline_data");
        w.inline = SimPostVerbs.readInline(qp.device, new long[] {address}, new int[] {length});
        w.addresses = new long[0];
        w.lengths = new int[0];
        w.lkeys = new int[0];
    }

    private Wqe build(SendOpcode op) {
        requireStarted(BUILDERS.getOrDefault(op, "ibv_wr_" + op.name().toLowerCase(Locale.ROOT)));
        if ((sendOpsFlags & (1L << op.value())) == 0) {
            throw new IllegalStateException(qp.describe() + " has no builder for " + op + ": it was not in "
                    + "send_ops_flags at create");
        }
        Wqe w = new Wqe();
        w.wrId = wrId;
        w.flags = wrFlags;
        w.opcode = op;
        building.add(w);
        return w;
    }

    private static Wqe remote(Wqe w, int rkey, long remoteAddress) {
        w.rkey = rkey;
        w.remoteAddress = remoteAddress;
        return w;
    }

    private Wqe last(String setter) {
        requireStarted(setter);
        if (building.isEmpty()) {
            throw new IllegalStateException(setter + " before any builder: it sets the WQE built last");
        }
        return building.get(building.size() - 1);
    }

    private void requireStarted(String call) {
        session.requireHeld(call);
    }
}
