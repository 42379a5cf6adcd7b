package io.rdmaverbs.benchmarks.connection;

import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.attr.QpCapabilities;

/**
 * What cmtime's {@code rdma_create_qp(id, NULL, attr)} makes, through the project's API: given no CQs,
 * librdmacm creates a completion channel and a CQ of {@code max_recv_wr} entries for receives, the same of
 * {@code max_send_wr} for sends, then the RC QP on them (cmtime: one WR and one SGE each way), and
 * {@code rdma_destroy_qp(3)} destroys all five. The PD is librdmacm's one per device, here the caller's.
 */
record CmQueuePair(CompletionChannel recvChannel, CompletionQueue recvCq, CompletionChannel sendChannel,
        CompletionQueue sendCq, QueuePair qp) implements AutoCloseable {

    static final QpCapabilities CMTIME = new QpCapabilities(1, 1, 1, 1, 0);

    static DeviceContext contextOf(CmId id) {
        DeviceContext context = id.context();
        if (context == null) {
            throw new IllegalStateException(id + " has no device context: resolve its address first");
        }
        return context;
    }

    static CmQueuePair create(CmId id, ProtectionDomain pd) {
        DeviceContext ctx = contextOf(id);
        CompletionChannel recvChannel = ctx.createCompletionChannel();
        CompletionQueue recvCq = ctx.createCompletionQueue(
                CompletionQueueSpec.of(CMTIME.maxRecvWr()).withChannel(recvChannel));
        CompletionChannel sendChannel = ctx.createCompletionChannel();
        CompletionQueue sendCq = ctx.createCompletionQueue(
                CompletionQueueSpec.of(CMTIME.maxSendWr()).withChannel(sendChannel));
        QueuePair qp = id.createQueuePair(pd, QueuePairSpec.rc(sendCq, recvCq, CMTIME));
        return new CmQueuePair(recvChannel, recvCq, sendChannel, sendCq, qp);
    }

    /** {@code rdma_destroy_qp(3)}'s order: the QP, then the CQs and their channels. */
    @Override
    public void close() {
        qp.close();
        sendCq.close();
        sendChannel.close();
        recvCq.close();
        recvChannel.close();
    }
}
