package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.CompletionField;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import io.rdmaverbs.verbs.scenario.Fixtures;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The extended CQ's polling session: the man page's order and the requested fields, enforced in Java. */
class CompletionPollerTest {

    private final Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0"), DeviceProfile.mlx5("mlx5_0")));
    private final DeviceContext ctx = verbs.openDevice("rxe0");
    private final CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(32)
            .withExtendedPolling(CompletionField.BYTE_LEN, CompletionField.QP_NUM), "cq");
    private final ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
    private final MemoryRegion mr = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE),
            "mr");

    @AfterEach
    void close() {
        verbs.close();
    }

    /** Three RDMA writes of a loopback QP to itself: three send completions. */
    private QueuePair threeWrites() {
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, Fixtures.CAPS), "qp");
        qp.toInit(Fixtures.PORT, Fixtures.REMOTE);
        qp.toReadyToReceive(Fixtures.selfAddress(ctx), qp.qpNum(), 0, Fixtures.pathMtu(ctx));
        qp.toReadyToSend(0);
        try (SendBatch writes = qp.newSendBatch(3, 1)) {
            for (int i = 0; i < 3; i++) {
                writes.add().wrId(10 + i).opcode(io.rdmaverbs.verbs.attr.SendOpcode.RDMA_WRITE)
                        .remote(mr.address() + 1024, mr.rkey()).single(mr, 0, 100 + i);
            }
            qp.postSend(writes);
        }
        return qp;
    }

    @Test
    void aBatchWalksEveryCompletionWithStartNextAndEnd() {
        QueuePair qp = threeWrites();
        CompletionPoller poller = cq.newPoller();
        List<Long> ids = new ArrayList<>();
        List<Integer> lengths = new ArrayList<>();

        assertThat(poller.start()).isTrue();
        do {
            assertThat(poller.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(poller.opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
            assertThat(poller.qpNum()).isEqualTo(qp.qpNum());
            ids.add(poller.wrId());
            lengths.add(poller.byteLength());
        } while (poller.next());
        poller.end();

        assertThat(ids).containsExactly(10L, 11L, 12L);
        assertThat(lengths).containsExactly(100, 101, 102);
        assertThat(poller.start()).as("the batch consumed them").isFalse();
    }

    @Test
    void callsOutOfTheManPagesOrderAreRefusedInJava() {
        threeWrites();
        CompletionPoller poller = cq.newPoller();
        assertThatThrownBy(poller::next).isInstanceOf(IllegalStateException.class).hasMessageContaining("outside a batch");
        assertThatThrownBy(poller::end).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(poller::wrId).isInstanceOf(IllegalStateException.class);

        assertThat(poller.start()).isTrue();
        assertThatThrownBy(poller::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("end()");
        assertThatThrownBy(poller::immediateData).as("IMM was not requested")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("IBV_WC_EX_WITH_IMM");
        while (poller.next()) {
            poller.wrId();
        }
        assertThatThrownBy(poller::wrId).as("next() found none").isInstanceOf(IllegalStateException.class);
        poller.end();
        assertThat(poller.inBatch()).isFalse();
    }

    @Test
    void aStartThatFindsNothingOpensNoBatch() {
        CompletionPoller poller = cq.newPoller();
        assertThat(poller.start()).isFalse();
        assertThat(poller.inBatch()).isFalse();
        assertThatThrownBy(poller::end).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aStartOnAClosedCqIsRefusedWithItsResourceClosedException() {
        QueuePair qp = threeWrites();
        CompletionPoller poller = cq.newPoller();
        qp.close();
        cq.close();

        assertThatThrownBy(poller::start).isInstanceOf(ResourceClosedException.class)
                .hasMessageContaining(cq.ref().toString());
        assertThat(poller.inBatch()).isFalse();
    }

    @Test
    void theClassicPollStillWorksOnAnExtendedCqAndThePollerNotOnAClassicOne() {
        threeWrites();
        try (var wc = cq.newWorkCompletions(4)) {
            assertThat(cq.poll(wc)).isEqualTo(3);
        }
        CompletionQueue classic = ctx.createCompletionQueue(CompletionQueueSpec.of(4), "classic");
        assertThat(classic.isExtended()).isFalse();
        assertThatThrownBy(classic::newPoller).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("withExtendedPolling");
        assertThat(cq.details()).containsEntry("extendedFields", List.of("BYTE_LEN", "QP_NUM"));
    }

    /** The same resource kind as a classic CQ, so the same stuck references: the QPs on it, unacknowledged events. */
    @Test
    void anExtendedCqKeepsTheClassicCqsStuckReferences() {
        CompletionChannel channel = ctx.createCompletionChannel("channel");
        CompletionQueue evented = ctx.createCompletionQueue(CompletionQueueSpec.of(8).withChannel(channel)
                .withExtendedPolling(CompletionField.STANDARD), "evented");
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(evented, evented, Fixtures.CAPS), "on-it");
        assertThat(evented.stuckReferences()).extracting(StuckReference::cause)
                .containsExactly(StuckReference.Cause.DEPENDENT_RESOURCE);
        assertThatThrownBy(evented::close).isInstanceOf(CloseRefusedException.class);

        qp.toInit(Fixtures.PORT, Fixtures.REMOTE);
        qp.toReadyToReceive(Fixtures.selfAddress(ctx), qp.qpNum(), 0, Fixtures.pathMtu(ctx));
        qp.toReadyToSend(0);
        evented.requestNotification(false);
        try (SendRequest write = qp.newSendRequest(1).opcode(io.rdmaverbs.verbs.attr.SendOpcode.RDMA_WRITE)
                .remote(mr.address() + 1024, mr.rkey()).single(mr, 0, 8)) {
            qp.postSend(write);
        }
        assertThat(channel.awaitEvent(java.time.Duration.ofSeconds(5))).contains(evented);
        qp.close();
        assertThat(evented.stuckReferences()).extracting(StuckReference::cause)
                .containsExactly(StuckReference.Cause.UNACKNOWLEDGED_CQ_EVENTS);
        assertThatThrownBy(evented::close).isInstanceOf(CloseRefusedException.class);
        assertThatThrownBy(channel::close).as("the channel has a CQ on it").isInstanceOf(CloseRefusedException.class);
        evented.acknowledgeEvents(1);
        evented.close();
        channel.close();
        assertThat(evented.isClosed()).isTrue();
    }

    @Test
    void rxeRefusesTimestampsWithEopnotsuppAndMlx5ReportsThem() {
        CompletionQueueSpec stamped = CompletionQueueSpec.of(4).withExtendedPolling(CompletionField.COMPLETION_TIMESTAMP);
        assertThatThrownBy(() -> ctx.createCompletionQueue(stamped)).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.verb()).isEqualTo("ibv_create_cq_ex");
            assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP);
        });
        assertThat(verbs.openDevice("mlx5_0").createCompletionQueue(stamped).isExtended()).isTrue();
    }
}
