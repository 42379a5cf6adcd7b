package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AtomicCapability;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import io.rdmaverbs.verbs.scenario.Fixtures;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The new post API's session: the order {@code ibv_wr_post(3)} prescribes and the QP's send ops, enforced in Java. */
class WorkRequestBuilderTest {

    private final Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0"),
            DeviceProfile.rxe("rxe1").toBuilder().atomicCap(AtomicCapability.NONE).build()));
    private final DeviceContext ctx = verbs.openDevice("rxe0");
    private final CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(64), "cq");
    private final ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
    private final MemoryRegion mr = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE),
            "mr");

    @AfterEach
    void close() {
        verbs.close();
    }

    private QueuePair loopback(int sendWr, SendOpcode... ops) {
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, new QpCapabilities(sendWr, 4, 1, 1, 0))
                .withSendOps(ops), "qp");
        qp.toInit(Fixtures.PORT, Fixtures.REMOTE);
        qp.toReadyToReceive(Fixtures.selfAddress(ctx), qp.qpNum(), 0, Fixtures.pathMtu(ctx));
        qp.toReadyToSend(0);
        return qp;
    }

    @Test
    void aSessionPostsEveryRequestItBuiltAtComplete() {
        QueuePair qp = loopback(16, SendOpcode.RDMA_WRITE);
        WorkRequestBuilder wr = qp.newWorkRequestBuilder(1);
        wr.start();
        for (int i = 0; i < 3; i++) {
            wr.wrId(i).rdmaWrite(mr.address() + 2048, mr.rkey()).sge(mr, 0, 64);
        }
        try (WorkCompletions wc = cq.newWorkCompletions(8)) {
            assertThat(cq.poll(wc)).as("nothing runs before complete").isZero();
            wr.complete();
            assertThat(cq.poll(wc)).isEqualTo(3);
        }
        assertThat(wr.started()).isFalse();
    }

    @Test
    void callsOutsideTheOrderOrForOperationsNotEnabledAreRefusedInJava() {
        QueuePair qp = loopback(16, SendOpcode.SEND);
        WorkRequestBuilder wr = qp.newWorkRequestBuilder(1);
        assertThatThrownBy(wr::complete).isInstanceOf(IllegalStateException.class).hasMessageContaining("start()");
        assertThatThrownBy(wr::send).isInstanceOf(IllegalStateException.class);
        wr.start();
        assertThatThrownBy(() -> wr.sge(mr, 0, 8)).as("a setter before any operation")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("build one first");
        assertThatThrownBy(() -> wr.rdmaWrite(mr.address(), mr.rkey())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("IBV_QP_EX_WITH_RDMA_WRITE");
        assertThatThrownBy(wr::start).isInstanceOf(IllegalStateException.class);
        wr.send().sge(mr, 0, 8);
        assertThatThrownBy(() -> wr.udAddress(null, 0, 0)).isInstanceOf(NullPointerException.class);
        wr.abort();
        assertThat(qp.lifetime.inFlight()).as("the session ended").isZero();
    }

    @Test
    void aCloseOfTheQpWaitsForAnOpenSessionToEndAndLaterSessionsAreRefused() throws Exception {
        QueuePair qp = loopback(16, SendOpcode.SEND);
        WorkRequestBuilder wr = qp.newWorkRequestBuilder(1);
        wr.start();
        CompletableFuture<Void> close = CompletableFuture.runAsync(qp::close);
        Thread.sleep(200);
        assertThat(close).as("the provider's destroy waits for the session").isNotDone();

        wr.abort();

        close.get(10, TimeUnit.SECONDS);
        assertThat(qp.isOpen()).isFalse();
        assertThatThrownBy(wr::start).isInstanceOf(ResourceClosedException.class);
        assertThat(wr.started()).isFalse();
    }

    @Test
    void moreRequestsThanTheQueueHoldsFailTheWholeSessionWithEnospc() {
        QueuePair qp = loopback(1, SendOpcode.RDMA_WRITE);
        WorkRequestBuilder wr = qp.newWorkRequestBuilder(1).start();
        for (int i = 0; i < 8; i++) {
            wr.wrId(i).rdmaWrite(mr.address() + 2048, mr.rkey()).sge(mr, 0, 8);
        }
        assertThatThrownBy(wr::complete).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.verb()).isEqualTo("ibv_wr_complete");
            assertThat(e.errno()).isEqualTo(Errno.ENOSPC);
        });
        try (WorkCompletions wc = cq.newWorkCompletions(8)) {
            assertThat(cq.poll(wc)).as("none was posted").isZero();
        }
        assertThat(wr.started()).isFalse();
    }

    @Test
    void aQpNotReadyToSendFailsCompleteWithEinval() {
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, Fixtures.CAPS).withSendOps(SendOpcode.SEND), "q");
        WorkRequestBuilder wr = qp.newWorkRequestBuilder(1).start();
        wr.send().sge(mr, 0, 8);
        assertThatThrownBy(wr::complete).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    @Test
    void misalignedAtomicsAndAtomicsOnADeviceWithoutThemAreRefused() {
        QueuePair qp = loopback(16, SendOpcode.ATOMIC_FETCH_AND_ADD);
        WorkRequestBuilder wr = qp.newWorkRequestBuilder(1).start();
        assertThatThrownBy(() -> wr.atomicFetchAdd(mr.address() + 4, mr.rkey(), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8-byte aligned");
        wr.atomicFetchAdd(mr.address(), mr.rkey(), 1);
        assertThatThrownBy(() -> wr.sge(mr, 0, 4)).isInstanceOf(IllegalArgumentException.class);
        wr.abort();

        DeviceContext none = verbs.openDevice("rxe1");
        CompletionQueue cq1 = none.createCompletionQueue(CompletionQueueSpec.of(4));
        assertThatThrownBy(() -> none.allocateProtectionDomain().createQueuePair(QueuePairSpec.rc(cq1, cq1,
                Fixtures.CAPS).withSendOps(SendOpcode.ATOMIC_CMP_AND_SWP))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("atomic_cap NONE");
    }

    @Test
    void inlineDataIsCopiedAtTheSetterAndRefusedBeyondMaxInlineData() {
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, new QpCapabilities(4, 4, 1, 1, 32))
                .withSendOps(SendOpcode.RDMA_WRITE), "inline");
        qp.toInit(Fixtures.PORT, Fixtures.REMOTE);
        qp.toReadyToReceive(Fixtures.selfAddress(ctx), qp.qpNum(), 0, Fixtures.pathMtu(ctx));
        qp.toReadyToSend(0);
        WorkRequestBuilder wr = qp.newWorkRequestBuilder(1).start();
        wr.rdmaWrite(mr.address() + 2048, mr.rkey());
        assertThatThrownBy(() -> wr.inlineData(mr.segment().asSlice(0, qp.capabilities().maxInlineData() + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_inline_data");
        mr.segment().asSlice(0, 16).fill((byte) 7);
        wr.inlineData(mr.segment().asSlice(0, 16));
        mr.segment().asSlice(0, 16).fill((byte) 1);
        wr.complete();
        try (WorkCompletions wc = cq.newWorkCompletions(2)) {
            assertThat(cq.poll(wc)).isEqualTo(1);
        }
        assertThat(mr.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 2048 + 15)).as("the bytes at the setter")
                .isEqualTo((byte) 7);
    }

    @Test
    void aQpWithoutSendOpsHasNoBuilder() {
        QueuePair plain = pd.createQueuePair(QueuePairSpec.rc(cq, cq, Fixtures.CAPS), "plain");
        assertThat(plain.sendOps()).isEmpty();
        assertThatThrownBy(() -> plain.newWorkRequestBuilder(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("withSendOps");
    }

    @Test
    void aRegionClosedDuringTheSessionAbortsItAtComplete() {
        QueuePair qp = loopback(16, SendOpcode.SEND);
        MemoryRegion other = pd.allocateMemory(64, EnumSet.of(AccessFlag.LOCAL_WRITE), "other");
        WorkRequestBuilder wr = qp.newWorkRequestBuilder(1).start();
        wr.send().sge(other, 0, 8);
        other.close();
        assertThatThrownBy(wr::complete).isInstanceOf(IllegalStateException.class).hasMessageContaining("aborted");
        assertThat(wr.started()).isFalse();
    }
}
