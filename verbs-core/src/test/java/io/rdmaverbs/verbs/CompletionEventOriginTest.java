package io.rdmaverbs.verbs;

import io.rdmaverbs.verbs.attr.WorkCompletions;
import java.time.Duration;

import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import io.rdmaverbs.verbs.scenario.Fixtures;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A CQ remembers when, on which thread and (when traced) from where the first of its unacknowledged
 * completion events was taken, as a lease does, so that leak detection can say who forgot to call
 * ibv_ack_cq_events(3).
 */
class CompletionEventOriginTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @Test
    void theOldestUnacknowledgedEventIsRememberedUntilEveryEventIsAcknowledged() {
        try (Rig rig = new Rig()) {
            assertThat(rig.cq.oldestUnacknowledgedEvent()).isEmpty();
            rig.takeOneEvent();
            CompletionQueue.EventTaken first = rig.cq.oldestUnacknowledgedEvent().orElseThrow();
            assertThat(first.thread()).isEqualTo(Thread.currentThread().getName());
            assertThat(first.stack()).as("not traced: no stack walk on the event path").isEmpty();
            rig.takeOneEvent();
            rig.cq.acknowledgeEvents(1);
            assertThat(rig.cq.oldestUnacknowledgedEvent()).as("a partial acknowledgement keeps the run")
                    .contains(first);
            rig.cq.acknowledgeEvents(1);
            assertThat(rig.cq.oldestUnacknowledgedEvent()).isEmpty();
        }
    }

    @Test
    void aTracedCqRecordsTheStackOfTheCallerOfAwaitEvent() {
        try (Rig rig = new Rig()) {
            rig.cq.traceEventOrigins(true);
            rig.takeOneEvent();
            StackTraceElement top = rig.cq.oldestUnacknowledgedEvent().orElseThrow().stack().getFirst();
            assertThat(top.getClassName()).isEqualTo(Rig.class.getName());
            assertThat(top.getMethodName()).isEqualTo("takeOneEvent");
            rig.cq.acknowledgeEvents(1);
        }
    }

    /** One RC pair on a simulated rxe0 whose shared CQ raises its events on a channel. */
    private static final class Rig implements AutoCloseable {

        final Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe("rxe0")));
        final CompletionChannel channel;
        final CompletionQueue cq;
        final QueuePair a;
        final MemoryRegion source;
        final MemoryRegion target;

        Rig() {
            DeviceContext ctx = verbs.openDevice("rxe0");
            channel = ctx.createCompletionChannel("events");
            cq = ctx.createCompletionQueue(CompletionQueueSpec.of(64).withChannel(channel), "cq");
            ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
            a = pd.createQueuePair(QueuePairSpec.rc(cq, cq, Fixtures.CAPS), "a");
            QueuePair b = pd.createQueuePair(QueuePairSpec.rc(cq, cq, Fixtures.CAPS), "b");
            Fixtures.connect(a, b, Fixtures.selfAddress(ctx), Fixtures.pathMtu(ctx));
            source = pd.allocateMemory(64, Fixtures.LOCAL, "source");
            target = pd.allocateMemory(64, Fixtures.REMOTE, "target");
        }

        /** An RDMA write whose completion raises an event, taken and left unacknowledged. */
        void takeOneEvent() {
            cq.requestNotification(false);
            try (SendRequest write = a.newSendRequest(1).wrId(1).opcode(SendOpcode.RDMA_WRITE).single(source, 0, 64)
                    .remote(target.address(), target.rkey());
                    WorkCompletions wc = cq.newWorkCompletions(4)) {
                a.postSend(write);
                assertThat(channel.awaitEvent(WAIT)).contains(cq);
                Fixtures.pollFor(cq, wc, 1, WAIT);
            }
        }

        @Override
        public void close() {
            verbs.close(ClosePolicy.CASCADE);
        }
    }
}
