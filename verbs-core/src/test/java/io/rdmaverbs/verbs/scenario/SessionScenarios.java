package io.rdmaverbs.verbs.scenario;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.CRC32;

import io.rdmaverbs.verbs.ResourceClosedException;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionListener;
import io.rdmaverbs.verbs.connection.ConnectionRejectedException;
import io.rdmaverbs.verbs.connection.ConnectionRequest;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.ConnectSpec;
import io.rdmaverbs.verbs.connection.InboundMessage;
import io.rdmaverbs.verbs.connection.ListenSpec;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.SessionSpec;

import static io.rdmaverbs.verbs.scenario.CmScenarios.EVENT_WAIT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The session protocol on the target (rdma_cm loopback, as {@link ConnectionScenarios}): correlation of
 * pipelined and late replies, credits under a slow receiver (no RNR NAK on the wire: rxe's
 * {@code hw_counters/rcvd_rnr_err} stays put), messages of 1 byte to 64 MiB by eager SEND and by rendezvous,
 * a rendezvous cut by a disconnect, and a peer that does not speak the protocol. What is recorded is what
 * the application sees, the same on the kernel and on the simulator.
 */
final class SessionScenarios {

    private static final Duration WAIT = EVENT_WAIT;
    /** The bound of each manager's stop: its DISCONNECTED comes within milliseconds unless a fault broke the link. */
    private static final Duration STOP = Duration.ofSeconds(5);

    private SessionScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("Sessions: pipelined requests answered out of order each get their own reply",
                        SessionScenarios::pipelinedOutOfOrder),
                new Scenario("Sessions: a reply after its request timed out is counted and dropped, never handed to "
                        + "the next request", SessionScenarios::lateReply),
                new Scenario("Sessions: a sender far ahead of a slow handler waits for credits: every message in order, "
                        + "no RNR NAK on the wire", SessionScenarios::creditsUnderASlowHandler),
                new Scenario("Sessions: messages of 1 B to 64 MiB arrive with their checksums, in order",
                        SessionScenarios::oneByteToSixtyFourMebibytes),
                new Scenario("Sessions: a rendezvous cut by the sender's disconnect fails its future with the reason "
                        + "and leaves nothing on either side", SessionScenarios::rendezvousCutByDisconnect),
                new Scenario("Sessions: a connect without the session protocol is rejected saying so",
                        SessionScenarios::peerWithoutTheProtocol));
    }

    static void pipelinedOutOfOrder(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        List<InboundMessage> held = new CopyOnWriteArrayList<>();
        CountDownLatch arrived = new CountDownLatch(8);
        try (Pair p = Pair.of(run, SessionSpec.defaults().handler(m -> {
            held.add(m);
            arrived.countDown();
        }))) {
            List<CompletableFuture<Message>> replies = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                replies.add(p.client.request(Message.of("request " + i), WAIT));
            }
            assertThat(arrived.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("8 requests reach the handler").isTrue();
            List<InboundMessage> reversed = new ArrayList<>(held);
            Collections.reverse(reversed);
            for (InboundMessage m : reversed) {
                m.reply(Message.of("reply to " + m.correlationId()));
            }
            for (int i = 0; i < 8; i++) {
                assertThat(replies.get(i).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).asString())
                        .isEqualTo("reply to " + (i + 1));
            }
            steps.observed("8 requests answered in reverse order", "each got its own reply");
        }
    }

    static void lateReply(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        CountDownLatch release = new CountDownLatch(1);
        try (Pair p = Pair.of(run, SessionSpec.defaults().handlerExecutor(Executors.newVirtualThreadPerTaskExecutor())
                .handler(m -> {
                    if (m.message().asString().equals("slow")) {
                        release.await();
                    }
                    m.reply(Message.of("reply to " + m.message().asString()));
                }))) {
            CompletableFuture<Message> slow = p.client.request(Message.of("slow"), Duration.ofMillis(300));
            steps.observed("the slow request", outcome(slow));
            CompletableFuture<Message> next = p.client.request(Message.of("fast"), WAIT);
            release.countDown();
            steps.observed("the next request", next.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).asString());
            eventually(() -> p.client.statistics().lateReplies() == 1);
            steps.observed("late replies", String.valueOf(p.client.statistics().lateReplies()));
        }
    }

    static void creditsUnderASlowHandler(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        List<String> got = new CopyOnWriteArrayList<>();
        long rnrBefore = run.rnrNaksReceived();
        try (Pair p = Pair.of(run, SessionSpec.defaults().handler(m -> {
            Thread.sleep(2);
            got.add(m.message().asString());
        }))) {
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            int count = 120;
            for (int i = 0; i < count; i++) {
                sends.add(p.client.send(Message.of("m" + i)));
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            eventually(() -> got.size() == count);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                expected.add("m" + i);
            }
            assertThat(got).as("every message, in order").isEqualTo(expected);
            steps.observed("120 messages to 16 receive buffers", "all delivered, in order");
        }
        long rnrAfter = run.rnrNaksReceived();
        assertThat(rnrAfter).as("RNR NAKs (rcvd_rnr_err) during the scenario").isEqualTo(rnrBefore);
        steps.observed("RNR NAKs on the wire", rnrBefore < 0 ? "not counted by this device" : "none");
    }

    static void oneByteToSixtyFourMebibytes(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Pair p = Pair.of(run, SessionSpec.defaults().handler(m -> m.reply(Message.of(String.valueOf(
                crc(m.toByteArray()))))))) {
            Random random = new Random(11);
            int[] sizes = {1, 64, 4000, 4096, 65_536, 1 << 20, (4 << 20) + 3, 64 << 20};
            List<CompletableFuture<Message>> replies = new ArrayList<>();
            List<Long> sums = new ArrayList<>();
            for (int size : sizes) {
                byte[] payload = new byte[size];
                random.nextBytes(payload);
                sums.add(crc(payload));
                replies.add(p.client.request(Message.of(payload), WAIT.multipliedBy(4)));
            }
            for (int i = 0; i < sizes.length; i++) {
                long echoed = Long.parseLong(replies.get(i).get(WAIT.multipliedBy(4).toMillis(), TimeUnit.MILLISECONDS)
                        .asString());
                assertThat(echoed).as("the checksum of %d bytes", sizes[i]).isEqualTo(sums.get(i));
            }
            steps.observed("8 messages of 1 B to 64 MiB", "every checksum matched");
            steps.observed("sent by rendezvous", String.valueOf(p.client.statistics().largeMessagesSent()));
        }
    }

    static void rendezvousCutByDisconnect(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Pair p = Pair.of(run, SessionSpec.defaults().handler(m -> { }))) {
            CompletableFuture<Void> sent = p.client.send(Message.of(new byte[32 << 20]));
            p.client.connection().disconnect();
            steps.observed("the large send", outcome(sent));
            assertThat(sent).failsWithin(WAIT).withThrowableThat().havingCause()
                    .isInstanceOf(ResourceClosedException.class).withMessageContaining(p.client.name());
            p.client.connection().close();
            eventually(() -> p.server().connections().isEmpty()
                    || p.server().connections().stream().allMatch(c -> !c.session().isOpen()));
        }
        assertThat(run.verbs().resources()).extracting(VerbsResource::name).as("the transfer's regions")
                .noneMatch(n -> n.contains("large-"));
    }

    static void peerWithoutTheProtocol(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            ConnectionListener l = server.listen(ListenSpec.on(new InetSocketAddress(run.cmAddress(), 0))
                    .session(SessionSpec.defaults()), ConnectionRequest::accept);
            ConnectionRejectedException e = steps.rejected("a raw connect to a session listener",
                    ConnectionRejectedException.class, () -> client.connect(ConnectSpec.to(l.address()).raw()));
            assertThat(e.getMessage()).contains("RVMS v1").contains("not the RVMS hello");
            l.close();
        }
        assertThat(run.verbs().resources()).extracting(VerbsResource::kind).doesNotContain(ResourceKind.CM_ID);
    }

    // ---- building blocks ----------------------------------------------------------------------------

    /** A server with a listener whose sessions get {@code spec}, and a client session connected to it. */
    private record Pair(Connections serverManager, Connections clientManager, Session client) implements AutoCloseable {

        static Pair of(ScenarioRun run, SessionSpec spec) {
            Connections server = Connections.on(run.verbs(), "server");
            Connections client = Connections.on(run.verbs(), "client");
            ConnectionListener l = server.listen(ListenSpec.on(new InetSocketAddress(run.cmAddress(), 0)).backlog(4)
                    .session(spec), ConnectionRequest::accept);
            Connection c = client.connect(ConnectSpec.to(l.address()));
            return new Pair(server, client, c.session());
        }

        Connections server() {
            return serverManager;
        }

        @Override
        public void close() {
            // Both stop before either is judged: a server left running (its rendezvous reader registering or
            // deregistering on a worker) would race the fault sweep's graph-against-kernel check.
            boolean client = clientManager.close(STOP).isComplete();
            boolean server = serverManager.close(STOP).isComplete();
            assertThat(client).as("the client's stop").isTrue();
            assertThat(server).as("the server's stop").isTrue();
        }
    }

    private static String outcome(CompletableFuture<?> f) {
        try {
            f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return "completed";
        } catch (ExecutionException e) {
            return "failed: " + e.getCause().getClass().getSimpleName();
        } catch (TimeoutException e) {
            return "still waiting after " + WAIT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static long crc(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    private static void eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT);
            }
            Thread.sleep(5);
        }
    }
}
