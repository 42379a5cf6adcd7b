package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.Test;

/**
 * Polls and posts do not enter their CQ or QP (the provider guards the call, see
 * {@code CompletionVerbs.destroyCq}): a close runs while a poll or post is inside the provider, and the
 * provider's refusal of the destroyed handle reaches the caller as the resource's
 * {@link ResourceClosedException}. Each call here is held inside the provider, before the simulated verb,
 * until the close has returned.
 */
class DataPathCloseRaceTest {

    private final SimulatedProvider simulated = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
    private final CountDownLatch inside = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Verbs verbs = Verbs.using(new ForwardingProvider(simulated) {
        @Override
        public CompletionVerbs completionVerbs() {
            return ForwardingProvider.around(CompletionVerbs.class, simulated.completionVerbs(), this::holdDataPath);
        }

        @Override
        public QueuePairVerbs queuePairVerbs() {
            return ForwardingProvider.around(QueuePairVerbs.class, simulated.queuePairVerbs(), this::holdDataPath);
        }

        private Object holdDataPath(java.lang.reflect.Method verb, Object[] args, ForwardingProvider.Call call)
                throws Throwable {
            if (verb.getName().equals("pollCq") || verb.getName().equals("postSend")) {
                inside.countDown();
                assertThat(closed.await(10, TimeUnit.SECONDS)).as("the close returned").isTrue();
            }
            return call.proceed();
        }
    });
    private final DeviceContext ctx = verbs.openDevice("rxe0");

    @Test
    void aPollInsideTheProviderWhenItsCqClosesEndsWithTheCqsResourceClosedException() throws Exception {
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16), "cq");
        WorkCompletions wc = cq.newWorkCompletions(4);
        CompletableFuture<Integer> poll = CompletableFuture.supplyAsync(() -> cq.poll(wc));
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();

        cq.close();
        closed.countDown();

        assertThat(cq.isClosed()).isTrue();
        assertThat(failureOf(poll)).isInstanceOf(ResourceClosedException.class).hasMessageContaining("cq");
    }

    @Test
    void aPostInsideTheProviderWhenItsQpClosesEndsWithTheQpsResourceClosedException() throws Exception {
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16), "cq");
        ProtectionDomain pd = ctx.allocateProtectionDomain();
        QueuePair qp = pd.createQueuePair(QueuePairSpec.rc(cq, cq, QpCapabilities.of(4, 4)), "qp");
        MemoryRegion mr = pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE), "buffer");
        SendRequest send = qp.newSendRequest(1).single(mr, 0, 64);
        CompletableFuture<Void> post = CompletableFuture.runAsync(() -> qp.postSend(send));
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();

        qp.close();
        closed.countDown();

        assertThat(qp.isClosed()).isTrue();
        assertThat(failureOf(post)).isInstanceOf(ResourceClosedException.class).hasMessageContaining("qp");
    }

    private static Throwable failureOf(CompletableFuture<?> call) throws InterruptedException {
        try {
            call.get(10, TimeUnit.SECONDS);
            throw new AssertionError("the call succeeded on a closed resource");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the call did not end", e);
        }
    }
}
