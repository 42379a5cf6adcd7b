package io.rdmaverbs.verbs.provider.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.util.List;

import io.rdmaverbs.verbs.attr.QpModification;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.SrqType;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.PostFailedException;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;
import io.rdmaverbs.verbs.provider.SrqHandle;
import io.rdmaverbs.verbs.provider.SrqInitSpec;
import io.rdmaverbs.verbs.provider.WorkRequestChain;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Chains of work requests: walked WR by WR with the kernel's rules, the failing one named by index. */
class WorkRequestChainTest {

    private final VerbsRig rig = new VerbsRig(DeviceProfile.rxe("rxe0"));
    private final QueuePairVerbs qpVerbs = rig.provider.queuePairVerbs();
    private final ContextHandle ctx = rig.open("rxe0");
    private final PdHandle pd = rig.provider.domainVerbs().allocPd(ctx);
    private final CqHandle cq = rig.provider.completionVerbs().createCq(ctx, 256, null, 0);
    private final MemorySegment buf = rig.buffer(4096);
    private final MrHandle mr = rig.register(pd, buf);

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void theRequestsBeforeAFailingOneArePostedAndRunAndTheRestAreNot() {
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        rig.loopback(qp, ctx);
        try (WorkRequestChain<RecvWr> recvs = qpVerbs.newRecvChain(4, 1);
                WorkRequestChain<SendWr> sends = qpVerbs.newSendChain(4, 1)) {
            for (int i = 0; i < 4; i++) {
                recvs.request(i).wrId(100 + i);
                recvs.request(i).sge(0, buf.address() + 2048 + i * 64L, 64, mr.lkey());
                recvs.request(i).sgeCount(1);
                SendWr send = sends.request(i);
                send.wrId(i);
                send.flags(SendFlag.SIGNALED);
                send.sge(0, buf.address() + i * 64L, 64, mr.lkey());
                send.sgeCount(1);
            }
            recvs.length(4);
            sends.length(4);
            qpVerbs.postRecv(qp, recvs);
            // An atomic at a misaligned address: rxe's validate_send_wr refuses it with EINVAL.
            sends.request(2).opcode(SendOpcode.ATOMIC_FETCH_AND_ADD);
            sends.request(2).atomic(buf.address() + 3, mr.rkey(), 1, 0);

            assertThatThrownBy(() -> qpVerbs.postSend(qp, sends)).isInstanceOfSatisfying(PostFailedException.class,
                    e -> {
                        assertThat(e.verb()).isEqualTo("ibv_post_send");
                        assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                        assertThat(e.failedIndex()).isEqualTo(2);
                        assertThat(e.reason()).contains("8-byte aligned");
                    });

            List<VerbsRig.Wc> done = rig.poll(cq);
            assertThat(done).extracting(VerbsRig.Wc::wrId).containsExactlyInAnyOrder(0L, 100L, 1L, 101L);
            assertThat(done).extracting(VerbsRig.Wc::status).containsOnly(WcStatus.SUCCESS);
        }
    }

    @Test
    void aReceiveChainLongerThanTheQueueFillsItAndFailsWithEnomemAtTheFirstThatDidNotFit() {
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        qpVerbs.modifyQp(qp, QpModification.init(1, 0, java.util.Set.of()));
        int slots = Driver.queueSlots(16);
        try (WorkRequestChain<RecvWr> recvs = qpVerbs.newRecvChain(slots + 5, 1)) {
            for (int i = 0; i < slots + 5; i++) {
                recvs.request(i).wrId(i);
            }
            recvs.length(slots + 5);

            assertThatThrownBy(() -> qpVerbs.postRecv(qp, recvs)).isInstanceOfSatisfying(PostFailedException.class,
                    e -> {
                        assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
                        assertThat(e.failedIndex()).isEqualTo(slots);
                    });

            qpVerbs.modifyQp(qp, QpModification.to(QpState.ERR));
            List<VerbsRig.Wc> flushed = rig.poll(cq);
            assertThat(flushed).as("exactly the posted receives are flushed").hasSize(slots)
                    .allMatch(wc -> wc.status() == WcStatus.WR_FLUSH_ERR && wc.wrId() < slots);
        }
    }

    @Test
    void aQpNotReadyToSendRefusesTheWholeChainAtItsFirstRequest() {
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        try (WorkRequestChain<SendWr> sends = qpVerbs.newSendChain(3, 1)) {
            sends.length(3);

            assertThatThrownBy(() -> qpVerbs.postSend(qp, sends)).isInstanceOfSatisfying(PostFailedException.class,
                    e -> {
                        assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                        assertThat(e.failedIndex()).isZero();
                        assertThat(e.getMessage()).contains("none was posted");
                    });
        }
    }

    @Test
    void anSrqChainQueuesWhatFitsAndNamesTheFirstThatDidNot() {
        SrqHandle srq = rig.provider.sharedReceiveQueueVerbs().createSrq(ctx, new SrqInitSpec(SrqType.BASIC, pd, null,
                null, 8, 1, 0));
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC, srq);
        rig.loopback(qp, ctx);
        int slots = Driver.queueSlots(8);
        try (WorkRequestChain<RecvWr> recvs = qpVerbs.newRecvChain(slots + 1, 1); SendWr send = qpVerbs.newSendWr(1)) {
            for (int i = 0; i <= slots; i++) {
                recvs.request(i).wrId(i);
                recvs.request(i).sge(0, buf.address() + i * 64L, 64, mr.lkey());
                recvs.request(i).sgeCount(1);
            }
            recvs.length(slots + 1);

            assertThatThrownBy(() -> rig.provider.sharedReceiveQueueVerbs().postSrqRecv(srq, recvs))
                    .isInstanceOfSatisfying(PostFailedException.class, e -> {
                        assertThat(e.verb()).isEqualTo("ibv_post_srq_recv");
                        assertThat(e.failedIndex()).isEqualTo(slots);
                    });

            send.wrId(77);
            send.sge(0, buf.address() + 3000, 8, mr.lkey());
            send.sgeCount(1);
            qpVerbs.postSend(qp, send);
            assertThat(rig.poll(cq)).extracting(VerbsRig.Wc::opcode).contains(WcOpcode.RECV);
        }
    }

    @Test
    void aChainFromAnotherProviderOrEmptyIsRejectedBeforeTheKernel() {
        QpHandle qp = rig.qp(ctx, pd, cq, QpType.RC);
        try (VerbsRig other = new VerbsRig(DeviceProfile.rxe("rxe1"));
                WorkRequestChain<SendWr> foreign = other.provider.queuePairVerbs().newSendChain(1, 1);
                WorkRequestChain<SendWr> empty = qpVerbs.newSendChain(1, 1)) {
            foreign.length(1);
            assertThatThrownBy(() -> qpVerbs.postSend(qp, foreign)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> qpVerbs.postSend(qp, empty)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("empty");
        }
    }
}
