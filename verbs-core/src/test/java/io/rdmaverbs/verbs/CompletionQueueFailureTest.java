package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Set;

import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import io.rdmaverbs.verbs.scenario.Fixtures;

import org.junit.jupiter.api.Test;

/** A CQ whose provider refuses {@code ibv_poll_cq} or {@code ibv_ack_cq_events}. */
class CompletionQueueFailureTest {

    private final SimulatedProvider simulated = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
    /** The completion verbs that fail, by method name, with the provider's unnamed error. */
    private volatile Set<String> failing = Set.of();
    private final CompletionVerbs completions = ForwardingProvider.around(CompletionVerbs.class,
            simulated.completionVerbs(), (verb, args, call) -> {
                if (failing.contains(verb.getName())) {
                    throw new VerbsException(verb.getName(), "ibv_cq@0x1", Errno.EINVAL, "refused");
                }
                return call.proceed();
            });
    private final Verbs verbs = Verbs.using(new ForwardingProvider(simulated) {
        @Override
        public CompletionVerbs completionVerbs() {
            return completions;
        }
    });
    private final DeviceContext ctx = verbs.openDevice("rxe0");
    private final CompletionChannel channel = ctx.createCompletionChannel("channel");
    private final CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(64).withChannel(channel), "cq");

    @Test
    void aFailedAcknowledgementLeavesTheEventsUnacknowledgedAndNamesTheCq() {
        takeOneEvent();
        failing = Set.of("ackCqEvents");

        assertThatThrownBy(() -> cq.acknowledgeEvents(1)).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.verb()).isEqualTo("ackCqEvents");
            assertThat(e.resource()).isEqualTo(cq.ref().toString());
        });

        assertThat(cq.unacknowledgedEvents()).isEqualTo(1);
        assertThat(cq.oldestUnacknowledgedEvent()).isPresent();
        assertThat(cq.stuckReferences()).extracting(StuckReference::cause)
                .contains(StuckReference.Cause.UNACKNOWLEDGED_CQ_EVENTS);
        failing = Set.of();
        cq.acknowledgeEvents(1);
        assertThat(cq.unacknowledgedEvents()).isZero();
    }

    @Test
    void aFailedPollNamesTheCq() {
        failing = Set.of("pollCq");

        assertThatThrownBy(() -> cq.poll(cq.newWorkCompletions(4))).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.resource()).isEqualTo(cq.ref().toString()));
    }

    /** An RDMA write on a loopback pair whose completion raises an event, taken and left unacknowledged. */
    private void takeOneEvent() {
        ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
        QueuePair a = pd.createQueuePair(QueuePairSpec.rc(cq, cq, Fixtures.CAPS), "a");
        QueuePair b = pd.createQueuePair(QueuePairSpec.rc(cq, cq, Fixtures.CAPS), "b");
        Fixtures.connect(a, b, Fixtures.selfAddress(ctx), Fixtures.pathMtu(ctx));
        MemoryRegion source = pd.allocateMemory(64, Fixtures.LOCAL, "source");
        MemoryRegion target = pd.allocateMemory(64, Fixtures.REMOTE, "target");
        cq.requestNotification(false);
        try (SendRequest write = a.newSendRequest(1).wrId(1).opcode(SendOpcode.RDMA_WRITE).single(source, 0, 64)
                .remote(target.address(), target.rkey())) {
            a.postSend(write);
            assertThat(channel.awaitEvent(Duration.ofSeconds(5))).contains(cq);
        }
    }
}
