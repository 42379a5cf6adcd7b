package io.rdmaverbs.verbs.provider.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.RecvWr;
import io.rdmaverbs.verbs.provider.SendWr;

import org.junit.jupiter.api.Test;

/** The provider-format request and completion buffers. */
class WorkRequestBuffersTest {

    private final SimulatedProvider provider = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
    private final DeviceVerbs deviceVerbs = provider.deviceVerbs();
    private final DomainVerbs domainVerbs = provider.domainVerbs();
    private final CompletionVerbs cqVerbs = provider.completionVerbs();
    private final QueuePairVerbs qpVerbs = provider.queuePairVerbs();

    @Test
    void aSendRequestKeepsWhatWasSetUntilCleared() {
        try (SendWr wr = qpVerbs.newSendWr(2)) {
            wr.wrId(7);
            wr.opcode(SendOpcode.RDMA_WRITE_WITH_IMM);
            wr.sge(1, 0x1000, 64, 42);
            wr.sgeCount(2);
            wr.rdma(0x2000, 99);
            wr.immediateData(-1);
            assertThat(wr.maxSge()).isEqualTo(2);
            assertThat(wr.sgeAddress(1)).isEqualTo(0x1000);
            assertThat(wr.sgeLkey(1)).isEqualTo(42);
            assertThat(wr.rkey()).isEqualTo(99);
            assertThat(wr.immediateData()).isEqualTo(-1);
            wr.clear();
            assertThat(wr.sgeCount()).isZero();
            assertThat(wr.opcode()).isEqualTo(SendOpcode.SEND);
            assertThat(wr.addressHandle()).isNull();
            assertThatThrownBy(() -> wr.sge(2, 0, 0, 0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> wr.sgeCount(3)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void closedRequestsAndCompletionBuffersRefuseUse() {
        SendWr send = qpVerbs.newSendWr(1);
        RecvWr recv = qpVerbs.newRecvWr(1);
        WorkCompletions wc = cqVerbs.newWorkCompletions(4);
        send.close();
        recv.close();
        wc.close();
        wc.close();

        assertThatThrownBy(() -> send.wrId(1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> recv.sgeCount()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> wc.wrId(0)).isInstanceOf(IllegalStateException.class);
        ContextHandle ctx = deviceVerbs.openDevice(deviceVerbs.devices().get(0));
        CqHandle cq = cqVerbs.createCq(ctx, 4, null, 0);
        assertThatThrownBy(() -> cqVerbs.pollCq(cq, wc, 1)).isInstanceOf(IllegalStateException.class);
        PdHandle pd = domainVerbs.allocPd(ctx);
        QpHandle qp = qpVerbs.createQp(ctx, new io.rdmaverbs.verbs.provider.QpInitSpec(QpType.RC, pd, null, cq, cq,
                null, io.rdmaverbs.verbs.attr.QpCapabilities.of(1, 1), false));
        assertThatThrownBy(() -> qpVerbs.postSend(qp, send)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void buffersOfAnotherProviderAreRefused() {
        SimulatedProvider other = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        ContextHandle ctx = deviceVerbs.openDevice(deviceVerbs.devices().get(0));
        CqHandle cq = cqVerbs.createCq(ctx, 4, null, 0);
        assertThatThrownBy(() -> cqVerbs.pollCq(cq, other.completionVerbs().newWorkCompletions(1), 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cqVerbs.pollCq(cq, cqVerbs.newWorkCompletions(1), 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity");
    }
}
