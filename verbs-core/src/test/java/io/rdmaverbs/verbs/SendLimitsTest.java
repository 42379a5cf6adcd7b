package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AtomicCapability;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The device limits of atomics and inline data, enforced in Java before the provider sees the request. */
class SendLimitsTest {

    private final Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0").toBuilder()
            .atomicCap(AtomicCapability.NONE).build()));
    private final DeviceContext ctx = verbs.openDevice("rxe0");
    private final ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
    private final CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16), "cq");
    private final QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, new QpCapabilities(4, 4, 1, 1, 32)), "qp");
    private final MemoryRegion mr = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE), "mr");

    @AfterEach
    void close() {
        verbs.close();
    }

    @Test
    void anAtomicOnADeviceWithoutAtomicsIsRefusedNamingAtomicCap() {
        assertThat(ctx.attributes().atomicCap()).isEqualTo(AtomicCapability.NONE);
        try (SendRequest atomic = qp.newSendRequest(1).opcode(SendOpcode.ATOMIC_CMP_AND_SWP)
                .atomic(0x1000, 1, 0, 1).single(mr, 0, 8)) {
            assertThatThrownBy(() -> qp.postSend(atomic)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("atomic_cap NONE").hasMessageContaining("rxe0");
        }
    }

    @Test
    void anOpcodeChangedToAnAtomicAfterAPostIsRefusedNamingAtomicCap() {
        try (SendRequest send = qp.newSendRequest(1).single(mr, 0, 8)) {
            assertThatThrownBy(() -> qp.postSend(send)).as("past the Java checks, refused for the QP's state")
                    .isInstanceOf(VerbsException.class).hasMessageContaining("RTS");

            send.opcode(SendOpcode.ATOMIC_FETCH_AND_ADD);

            assertThatThrownBy(() -> qp.postSend(send)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("atomic_cap NONE");
        }
    }

    @Test
    void aBatchWithOneOversizedInlineRequestIsRefusedWholeInJava() {
        int max = qp.capabilities().maxInlineData();
        try (SendBatch batch = qp.newSendBatch(3, 1)) {
            batch.add().single(mr, 0, 8);
            batch.add().flags(SendFlag.SIGNALED | SendFlag.INLINE).single(mr, 0, max + 1);
            batch.add().single(mr, 0, 8);

            assertThatThrownBy(() -> qp.postSend(batch)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("max_inline_data").hasMessageContaining(String.valueOf(max + 1));
        }
    }

    @Test
    void anInlineRequestWithinTheGrantedLimitPassesTheChecks() {
        int max = qp.capabilities().maxInlineData();
        try (SendRequest send = qp.newSendRequest(1).flags(SendFlag.INLINE).single(mr, 0, max)) {
            // The QP is in RESET: past the Java checks the provider refuses the post for its state.
            assertThatThrownBy(() -> qp.postSend(send)).isInstanceOf(VerbsException.class)
                    .hasMessageContaining("RTS");
        }
    }

    @Test
    void aRequestOfABatchCannotBeClosedAloneAndTheBatchClosesIt() {
        SendBatch batch = qp.newSendBatch(2, 1);
        SendRequest first = batch.add();
        assertThatThrownBy(first::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("batch");
        batch.close();
        assertThatThrownBy(() -> qp.postSend(batch)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(batch::add).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFullBatchRefusesAnotherAddUntilCleared() {
        try (ReceiveBatch batch = qp.newReceiveBatch(2, 1)) {
            batch.add().wrId(1);
            batch.add().wrId(2);
            assertThatThrownBy(batch::add).isInstanceOf(IllegalStateException.class).hasMessageContaining("all added");
            assertThat(batch.clear().size()).isZero();
            assertThat(batch.add().wrId()).as("a request handed out again starts cleared").isZero();
        }
    }
}
