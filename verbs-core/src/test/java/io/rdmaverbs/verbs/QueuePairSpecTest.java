package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpType;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class QueuePairSpecTest {

    private static final QpCapabilities CAPS = QpCapabilities.of(16, 16);

    private final Mlx5Graph graph = new Mlx5Graph();
    private final ProtectionDomain pd = graph.pd;
    private final CompletionQueue cq = graph.cq;

    @AfterEach
    void closeGraph() {
        graph.close();
    }

    @Test
    void theTransportFactoriesSignalEverySendAndHaveNoSrq() {
        assertThat(QueuePairSpec.rc(cq, cq, CAPS)).isEqualTo(new QueuePairSpec(QpType.RC, cq, cq, null, CAPS, true));
        assertThat(QueuePairSpec.uc(cq, cq, CAPS).type()).isEqualTo(QpType.UC);
        assertThat(QueuePairSpec.ud(cq, cq, CAPS).type()).isEqualTo(QpType.UD);
        assertThat(QueuePairSpec.xrcSend(cq, CAPS)).isEqualTo(new QueuePairSpec(QpType.XRC_SEND, cq, null, null, CAPS,
                true));
        assertThat(QueuePairSpec.rc(cq, cq, CAPS).withSignalAll(false).signalAll()).isFalse();
    }

    @Test
    void aQpWithItsOwnReceiveQueueNeedsAReceiveCq() {
        assertThatThrownBy(() -> new QueuePairSpec(QpType.RC, cq, null, null, CAPS, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("recvCq is missing");
    }

    @Test
    void anXrcSendQpHasNoReceiveQueue() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(16));
        assertThatThrownBy(() -> new QueuePairSpec(QpType.XRC_SEND, cq, cq, null, CAPS, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("recvCq is set");
        assertThatThrownBy(() -> QueuePairSpec.xrcSend(cq, CAPS).withSrq(srq))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("srq is set");
    }

    @Test
    void anXrcReceiveQpIsPointedToItsDomain() {
        assertThatThrownBy(() -> new QueuePairSpec(QpType.XRC_RECV, cq, cq, null, CAPS, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("XrcDomain.createReceiveQueuePair");
    }

    @Test
    void withSrqMakesTheQpReceiveThroughIt() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(SharedReceiveQueueSpec.basic(16), "srq");
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, CAPS).withSrq(srq), "qp");
        assertThat(qp.srq()).isSameAs(srq);
        assertThat(srq.dependents()).containsExactly(qp);
    }
}
