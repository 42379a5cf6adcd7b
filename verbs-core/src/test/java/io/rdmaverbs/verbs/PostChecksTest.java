package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.IntStream;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request or batch posted again unchanged is checked only for what can change without it (PostChecks):
 * each test posts once, so that the Java checks pass and are remembered, then changes one thing a full check
 * reads, and the next post must be refused in Java. The QPs stay in RESET: a post that passes the Java checks
 * is refused by the provider for the QP's state, which is how the tests tell the two apart.
 */
class PostChecksTest {

    private static final EnumSet<AccessFlag> LOCAL = EnumSet.of(AccessFlag.LOCAL_WRITE);

    private final Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")));
    private final DeviceContext ctx = verbs.openDevice("rxe0");
    private final ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
    private final CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(64), "cq");
    private final QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, new QpCapabilities(16, 16, 1, 1, 64)),
            "qp");
    private final MemoryRegion kept = pd.allocateMemory(4096, LOCAL, "kept");
    private final MemoryRegion gone = pd.allocateMemory(4096, LOCAL, "gone");

    @AfterEach
    void close() {
        verbs.close();
    }

    @Test
    void anUnchangedSendBatchIsRefusedOnceARegionItNamesCloses() {
        try (SendBatch batch = qp.newSendBatch(3, 1)) {
            batch.add().single(kept, 0, 8);
            batch.add().single(gone, 0, 8);
            batch.add().single(kept, 64, 8);
            passesTheJavaChecks(() -> qp.postSend(batch));
            passesTheJavaChecks(() -> qp.postSend(batch));

            gone.close();

            assertThatThrownBy(() -> qp.postSend(batch)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("gone");
        }
    }

    @Test
    void anUnchangedReceiveBatchIsRefusedOnceARegionItNamesCloses() {
        try (ReceiveBatch batch = qp.newReceiveBatch(2, 1)) {
            batch.add().single(kept, 0, 8);
            batch.add().single(gone, 0, 8);
            passesTheJavaChecks(() -> qp.postReceive(batch));

            gone.close();

            assertThatThrownBy(() -> qp.postReceive(batch)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("gone");
        }
    }

    @Test
    void anUnchangedRequestIsRefusedOnceTheMemoryOfItsRegionIsFreed() {
        Arena arena = Arena.ofShared();
        MemoryRegion user = pd.registerMemory(arena.allocate(4096), LOCAL, "user");
        try (SendRequest send = qp.newSendRequest(1).single(user, 0, 8);
                ReceiveRequest recv = qp.newReceiveRequest(1).single(user, 0, 8)) {
            passesTheJavaChecks(() -> qp.postSend(send));
            passesTheJavaChecks(() -> qp.postReceive(recv));

            arena.close();

            assertThatThrownBy(() -> qp.postSend(send)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("was freed");
            assertThatThrownBy(() -> qp.postReceive(recv)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("was freed");
        }
    }

    @Test
    void anEntryMovedToARegionOfAnotherDeviceContextIsCheckedAgain() {
        DeviceContext other = verbs.openDevice("rxe0");
        MemoryRegion foreign = other.allocateProtectionDomain("pd2").allocateMemory(4096, LOCAL, "foreign");
        try (SendBatch batch = qp.newSendBatch(2, 1)) {
            batch.add().single(kept, 0, 8);
            batch.add().single(kept, 8, 8);
            passesTheJavaChecks(() -> qp.postSend(batch));

            batch.get(1).segment(0, foreign, 0, 8);

            assertThatThrownBy(() -> qp.postSend(batch)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("foreign").hasMessageContaining("another device context");
        }
    }

    @Test
    void anInlineEntryGrownPastTheLimitInItsOwnRegionIsRefused() {
        int max = qp.capabilities().maxInlineData();
        try (SendRequest send = qp.newSendRequest(1).flags(SendFlag.SIGNALED | SendFlag.INLINE).single(kept, 0, max)) {
            passesTheJavaChecks(() -> qp.postSend(send));

            send.segment(0, kept, 0, max + 1);

            assertThatThrownBy(() -> qp.postSend(send)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("max_inline_data");
        }
    }

    @Test
    void inlineSetAfterAPostIsCheckedAgainstTheLimit() {
        int max = qp.capabilities().maxInlineData();
        try (SendRequest send = qp.newSendRequest(1).single(kept, 0, max + 1)) {
            passesTheJavaChecks(() -> qp.postSend(send));

            send.flags(SendFlag.SIGNALED | SendFlag.INLINE);

            assertThatThrownBy(() -> qp.postSend(send)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("max_inline_data");
        }
    }

    @Test
    void aBatchPostedToAnotherQpIsCheckedAgainstThatQpsLimits() {
        QueuePair small = pd.createQueuePair(QueuePairSpec.rc(cq, cq, new QpCapabilities(16, 16, 1, 1, 0)), "small");
        int length = small.capabilities().maxInlineData() + 1;
        try (SendBatch batch = qp.newSendBatch(1, 1)) {
            batch.add().flags(SendFlag.SIGNALED | SendFlag.INLINE).single(kept, 0, length);
            passesTheJavaChecks(() -> qp.postSend(batch));

            assertThatThrownBy(() -> small.postSend(batch)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("small").hasMessageContaining("max_inline_data");
        }
    }

    @Test
    void anAtomicsRemoteAddressMisalignedAfterAPostIsRefused() {
        try (SendRequest atomic = qp.newSendRequest(1).opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).atomic(0x1000, 1, 1, 0)
                .single(kept, 0, 8)) {
            passesTheJavaChecks(() -> qp.postSend(atomic));

            atomic.remote(0x1004, 1);
            assertThatThrownBy(() -> qp.postSend(atomic)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("8-byte aligned");

            atomic.atomic(0x1000, 1, 1, 0);
            passesTheJavaChecks(() -> qp.postSend(atomic));
            atomic.atomic(0x1002, 1, 1, 0);
            assertThatThrownBy(() -> qp.postSend(atomic)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("8-byte aligned");
        }
    }

    @Test
    void anAtomicWhoseEntryShrinksAfterAPostIsRefused() {
        try (SendRequest atomic = qp.newSendRequest(1).opcode(SendOpcode.ATOMIC_CMP_AND_SWP).atomic(0x1000, 1, 0, 1)
                .single(kept, 0, 8)) {
            passesTheJavaChecks(() -> qp.postSend(atomic));

            atomic.segment(0, kept, 0, 4);

            assertThatThrownBy(() -> qp.postSend(atomic)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("8-byte entry");
        }
    }

    @Test
    void aReceiveEntryMovedToARegionOfAnotherDeviceContextIsCheckedAgain() {
        DeviceContext other = verbs.openDevice("rxe0");
        MemoryRegion foreign = other.allocateProtectionDomain("pd2").allocateMemory(4096, LOCAL, "foreign");
        try (ReceiveRequest recv = qp.newReceiveRequest(1).single(kept, 0, 8)) {
            passesTheJavaChecks(() -> qp.postReceive(recv));

            recv.segment(0, foreign, 0, 8);

            assertThatThrownBy(() -> qp.postReceive(recv)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("foreign").hasMessageContaining("another device context");
        }
    }

    @Test
    void anEntryCountGrownPastTheEntriesSetIsRefused() {
        QueuePair wide = pd.createQueuePair(QueuePairSpec.rc(cq, cq, new QpCapabilities(16, 16, 2, 2, 0)), "wide");
        try (ReceiveRequest recv = wide.newReceiveRequest(2).single(kept, 0, 8);
                SendRequest send = wide.newSendRequest(2).single(kept, 0, 8)) {
            passesTheJavaChecks(() -> wide.postReceive(recv));
            passesTheJavaChecks(() -> wide.postSend(send));

            recv.segments(2);
            send.segments(2);

            assertThatThrownBy(() -> wide.postReceive(recv)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("entry 1 was not set");
            assertThatThrownBy(() -> wide.postSend(send)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("entry 1 was not set");
        }
    }

    @Test
    void anUnchangedUdRequestIsRefusedOnceItsAddressHandleCloses() {
        QueuePair ud = pd.createQueuePair(QueuePairSpec.ud(cq, cq, new QpCapabilities(16, 16, 1, 1, 0)), "ud");
        AddressHandle ah = pd.createAddressHandle(AddressVector.roce(1, ctx.queryGid(1, 0), 0), "peer");
        try (SendRequest send = ud.newSendRequest(1).datagram(ah, 7, 0x11111111).single(kept, 0, 8)) {
            passesTheJavaChecks(() -> ud.postSend(send));

            ah.close();

            assertThatThrownBy(() -> ud.postSend(send)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("peer");
        }
    }

    @Test
    void aUdRequestAddressedThroughAHandleOfAnotherContextIsCheckedAgain() {
        QueuePair ud = pd.createQueuePair(QueuePairSpec.ud(cq, cq, new QpCapabilities(16, 16, 1, 1, 0)), "ud");
        AddressVector peer = AddressVector.roce(1, ctx.queryGid(1, 0), 0);
        AddressHandle ah = pd.createAddressHandle(peer, "peer");
        DeviceContext other = verbs.openDevice("rxe0");
        AddressHandle foreign = other.allocateProtectionDomain("pd2").createAddressHandle(peer, "foreign");
        try (SendRequest send = ud.newSendRequest(1).datagram(ah, 7, 0x11111111).single(kept, 0, 8)) {
            passesTheJavaChecks(() -> ud.postSend(send));

            send.datagram(foreign, 7, 0x11111111);

            assertThatThrownBy(() -> ud.postSend(send)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("foreign").hasMessageContaining("another device context");
        }
    }

    @Test
    void aClearedRequestNoLongerAnswersForTheRegionsItNamedBefore() {
        try (SendRequest send = qp.newSendRequest(1).single(gone, 0, 8);
                ReceiveRequest recv = qp.newReceiveRequest(1).single(gone, 0, 8)) {
            passesTheJavaChecks(() -> qp.postSend(send));
            passesTheJavaChecks(() -> qp.postReceive(recv));

            send.clear();
            recv.clear();
            passesTheJavaChecks(() -> qp.postSend(send));
            passesTheJavaChecks(() -> qp.postReceive(recv));
            gone.close();

            // Posted unchanged since the check after the clear: only what that check found is checked again.
            passesTheJavaChecks(() -> qp.postSend(send));
            passesTheJavaChecks(() -> qp.postReceive(recv));
        }
    }

    @Test
    void aBatchNamingMoreRegionsThanAreKeptIsWalkedInFullEveryPost() {
        int count = PostChecks.MOST + 2;
        List<MemoryRegion> regions = IntStream.range(0, count)
                .mapToObj(i -> pd.allocateMemory(64, LOCAL, "r" + i)).toList();
        try (ReceiveBatch batch = qp.newReceiveBatch(count, 1)) {
            regions.forEach(r -> batch.add().single(r, 0, 8));
            passesTheJavaChecks(() -> qp.postReceive(batch));

            regions.getLast().close();

            assertThatThrownBy(() -> qp.postReceive(batch)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("r" + (count - 1));
        }
    }

    @Test
    void aClearedAndRefilledBatchIsWalkedAgain() {
        try (SendBatch batch = qp.newSendBatch(2, 1)) {
            batch.add().single(kept, 0, 8);
            passesTheJavaChecks(() -> qp.postSend(batch));

            batch.clear();
            batch.add().single(kept, 0, 8);
            batch.add().segments(1);

            assertThatThrownBy(() -> qp.postSend(batch)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("entry 0 was not set");
        }
    }

    /** The post got past the Java checks: the provider refused it for the QP's state (RESET), nothing else. */
    private static void passesTheJavaChecks(ThrowingCallable post) {
        assertThatThrownBy(post).isInstanceOf(VerbsException.class).hasMessageContaining("RESET");
    }
}
