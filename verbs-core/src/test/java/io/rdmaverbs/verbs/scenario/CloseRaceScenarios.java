package io.rdmaverbs.verbs.scenario;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionListener;
import io.rdmaverbs.verbs.connection.ConnectionState;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.ConnectSpec;
import io.rdmaverbs.verbs.connection.ListenSpec;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.SessionSpec;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.jspecify.annotations.Nullable;

import static io.rdmaverbs.verbs.scenario.CmScenarios.EVENT_WAIT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closes that race the connection's own CM traffic, in one process on the target: the close of a
 * connection against its lane's answer to the peer's DISCONNECTED (an {@code rdma_disconnect} that reaches
 * the QP through {@code id->qp} while the close's {@code rdma_destroy_qp} frees it), both managers of live
 * connections closed at once, and ten checksummed request/echo exchanges whose pairs close concurrently. On a real
 * device a lost race is a SIGSEGV in libibverbs and the JVM is gone; the simulated provider widens
 * librdmacm's window ({@link SimulatedProvider#widenLibrdmacmRaces}) and records such a use instead
 * ({@link SimulatedProvider#freedMemoryUses()}, which {@link ScenarioRun#close()} requires empty).
 *
 * <p>Many rounds each: on the kernel the window is a few instructions wide. What is recorded is the same
 * whichever way each race went, so the differential holds.
 */
final class CloseRaceScenarios {

    /** Rounds of the one-connection races on the kernel; the simulator's widened window needs fewer. */
    private static final int KERNEL_ROUNDS = Integer.getInteger("rdma.verbs.close-race.rounds", 60);
    private static final int SIMULATED_ROUNDS = 12;
    /** Wide enough that every unserialised use lands in it, on any machine. */
    private static final Duration SIMULATED_WINDOW = Duration.ofMillis(3);
    private static final int PAIRS = 10;
    private static final int MESSAGES = Integer.getInteger("rdma.verbs.close-race.messages", 200);

    private CloseRaceScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("Close races: a connection closed while its lane answers the peer's DISCONNECTED, many "
                        + "rounds, leaves nothing", CloseRaceScenarios::closeAgainstDisconnectAnswer),
                new Scenario("Close races: both managers of three live connections closed at once, many rounds, "
                        + "leave nothing", CloseRaceScenarios::bothManagersAtOnce),
                new Scenario("Close races: ten raw connections exchange checksummed messages, then each pair closes "
                        + "concurrently, leaving nothing", CloseRaceScenarios::tenRawPairsCloseConcurrently),
                new Scenario("Close races: ten sessions exchange checksummed requests and echoes, then each pair "
                        + "closes concurrently, leaving nothing", CloseRaceScenarios::tenPairsCloseConcurrently),
                new Scenario("Close races: a connection closed while its handler still reads the payload, small and "
                        + "40 MiB, many rounds: the handler reads what arrived, the memory is freed after it",
                        CloseRaceScenarios::closedUnderItsHandler));
    }

    /**
     * The client disconnects; at once the server's connection is closed, while its event loop reads the
     * DISCONNECTED and its lane answers it with {@code rdma_disconnect}.
     */
    static void closeAgainstDisconnectAnswer(ScenarioRun run) throws Exception {
        int rounds = rounds(run);
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            ListenedConnections accepted = ListenedConnections.on(server, run);
            for (int round = 0; round < rounds; round++) {
                Connection c = client.connect(ConnectSpec.to(accepted.listener.address()));
                Connection s = accepted.next();
                c.disconnect();
                s.close();
                c.close();
                assertClosed(c, s, round);
            }
            run.steps().observed("rounds", "every connection closed");
            accepted.listener.close();
        }
        assertNothingLeft(run);
    }

    /** Three connections between two managers; both managers closed by two threads released together. */
    static void bothManagersAtOnce(ScenarioRun run) throws Exception {
        int rounds = Math.max(3, rounds(run) / 4);
        ExecutorService closers = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < rounds; round++) {
                Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client");
                ListenedConnections accepted = ListenedConnections.on(server, run);
                List<Connection> pairs = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    pairs.add(client.connect(ConnectSpec.to(accepted.listener.address())));
                    pairs.add(accepted.next());
                }
                CountDownLatch go = new CountDownLatch(1);
                Future<?> a = closers.submit(() -> closeAt(go, server));
                Future<?> b = closers.submit(() -> closeAt(go, client));
                go.countDown();
                a.get(30, TimeUnit.SECONDS);
                b.get(30, TimeUnit.SECONDS);
                for (Connection c : pairs) {
                    assertThat(c.state()).as("round %d: %s", round, c).isEqualTo(ConnectionState.CLOSED);
                }
            }
            run.steps().observed("rounds", "both managers closed, every connection closed");
        } finally {
            closers.shutdownNow();
        }
        assertNothingLeft(run);
    }

    /**
     * The workload that crashed the JVM on rxe: ten RC connections, each exchanging checksummed messages both
     * ways (a request checked by the server's handler, its echo checked by the client), then every pair
     * closed (client, then server) on its own thread, all at once.
     */
    static void tenPairsCloseConcurrently(ScenarioRun run) throws Exception {
        java.util.concurrent.atomic.AtomicLong checkedByServer = new java.util.concurrent.atomic.AtomicLong();
        int messages = messages(run);
        long echoes = tenPairs(run, SessionSpec.defaults().handler(m -> {
            byte[] got = m.toByteArray();
            if (Long.parseLong(java.util.Objects.requireNonNull(m.headers().get("crc"))) != crc(got)) {
                throw new IllegalStateException("checksum mismatch on the server");
            }
            checkedByServer.incrementAndGet();
            m.reply(Message.of(got).withHeader("crc", String.valueOf(crc(got))));
        }), pair -> exchange(pair[0].session(), messages));
        assertThat(echoes).as("echoes whose checksum the client verified").isEqualTo((long) PAIRS * messages);
        assertThat(checkedByServer.get()).as("requests whose checksum the server verified")
                .isEqualTo((long) PAIRS * messages);
    }

    /**
     * The workload that crashed the JVM on rxe, as it was run: ten raw RC connections, each a ping-pong of
     * checksummed messages posted and polled by the application both ways, then every pair closed (client,
     * then server) on its own thread, all at once. Before the fix it failed here with EBUSY from
     * {@code ibv_destroy_qp} (the kernel refusing a destroy while the lane's {@code rdma_disconnect} held the
     * QP) where it did not crash.
     */
    static void tenRawPairsCloseConcurrently(ScenarioRun run) throws Exception {
        int messages = messages(run);
        long checked = tenPairs(run, null, pair -> rawExchange(pair[0], pair[1], messages));
        assertThat(checked).as("messages whose checksum was verified").isEqualTo(2L * PAIRS * messages);
    }

    /** One pair's exchange, client first: the checksums it verified. */
    @FunctionalInterface
    private interface Exchange {
        long run(Connection[] pair) throws Exception;
    }

    /**
     * {@link #PAIRS} connections (raw when {@code session} is null), each running {@code exchange} on its own
     * thread, all released at once, then closed (client, then server) by that thread: the checksums verified.
     */
    private static long tenPairs(ScenarioRun run, @Nullable SessionSpec session, Exchange exchange) throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(PAIRS);
        long checked = 0;
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            ListenedConnections accepted = ListenedConnections.on(server, run, session);
            List<Connection[]> pairs = new ArrayList<>();
            for (int i = 0; i < PAIRS; i++) {
                ConnectSpec to = ConnectSpec.to(accepted.listener.address());
                Connection c = client.connect(session == null ? to.raw() : to);
                pairs.add(new Connection[] {c, accepted.next()});
            }
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Long>> exchanges = new ArrayList<>();
            for (Connection[] pair : pairs) {
                exchanges.add(workers.submit(() -> {
                    go.await();
                    long verified = exchange.run(pair);
                    pair[0].close();
                    pair[1].close();
                    return verified;
                }));
            }
            go.countDown();
            for (Future<Long> f : exchanges) {
                checked += f.get(120, TimeUnit.SECONDS);
            }
            for (Connection[] pair : pairs) {
                assertClosed(pair[0], pair[1], 0);
            }
            run.steps().observed("exchanges", PAIRS + " pairs, every checksum matched, every connection closed");
            accepted.listener.close();
        } finally {
            workers.shutdownNow();
        }
        assertNothingLeft(run);
        return checked;
    }

    private static int messages(ScenarioRun run) {
        return run.provider() instanceof SimulatedProvider ? 20 : MESSAGES;
    }

    // ---- building blocks ----------------------------------------------------------------------------

    /** A listener whose accepted connections the scenario takes in order. */
    /**
     * Each round, the server's handler takes the payload, waits until its connection was closed on this thread,
     * then reads all of it: the close deregistered the receive buffer (or the large message's own region) and
     * must leave its memory to the handler's return to free. Freed, the small payload reads as the bytes
     * glibc's MALLOC_PERTURB_ wrote over it (the guest run sets it) and the 40 MiB one, which glibc unmaps,
     * crashes the JVM.
     */
    static void closedUnderItsHandler(ScenarioRun run) throws Exception {
        int smallRounds = Math.max(3, rounds(run) / 4);
        int largeRounds = 2;
        java.util.concurrent.BlockingQueue<CountDownLatch> closedSignals = new java.util.concurrent.LinkedBlockingQueue<>();
        java.util.concurrent.BlockingQueue<Long> readCrcs = new java.util.concurrent.LinkedBlockingQueue<>();
        java.util.concurrent.atomic.AtomicReference<CountDownLatch> inHandler =
                new java.util.concurrent.atomic.AtomicReference<>();
        SessionSpec handler = SessionSpec.defaults().handler(m -> {
            MemorySegment payload = m.message().payload();
            CountDownLatch closed = new CountDownLatch(1);
            closedSignals.add(closed);
            inHandler.get().countDown();
            closed.await();
            CRC32 crc = new CRC32();
            crc.update(payload.asByteBuffer());
            readCrcs.add(crc.getValue());
        });
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            ListenedConnections accepted = ListenedConnections.on(server, run, handler);
            java.util.Random random = new java.util.Random(20261204);
            for (int round = 0; round < smallRounds + largeRounds; round++) {
                byte[] sent = new byte[round < smallRounds ? 200 + random.nextInt(800) : 40 << 20];
                random.nextBytes(sent);
                CRC32 crc = new CRC32();
                crc.update(sent);
                Connection c = client.connect(ConnectSpec.to(accepted.listener.address()));
                Connection s = accepted.next();
                inHandler.set(new CountDownLatch(1));
                c.session().send(Message.of(sent)).get(EVENT_WAIT.toMillis(),
                        TimeUnit.MILLISECONDS);
                assertThat(inHandler.get().await(EVENT_WAIT.toMillis(), TimeUnit.MILLISECONDS))
                        .as("round %d: the message reaches the handler", round).isTrue();
                s.close();
                assertThat(s.resources()).as("round %d: the server's connection released", round).isEmpty();
                closedSignals.take().countDown();
                Long read = readCrcs.poll(EVENT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(read).as("round %d: the handler read %d bytes after the close", round, sent.length)
                        .isEqualTo(crc.getValue());
                c.close();
                assertClosed(c, s, round);
            }
            run.steps().observed("rounds", "every handler read what arrived after its connection was released");
            accepted.listener.close();
        }
        assertNothingLeft(run);
    }

    private record ListenedConnections(ConnectionListener listener,
            java.util.concurrent.BlockingQueue<Connection> accepted) {

        static ListenedConnections on(Connections server, ScenarioRun run) {
            return on(server, run, SessionSpec.defaults());
        }

        /** With {@code session} null, raw connections. */
        static ListenedConnections on(Connections server, ScenarioRun run, @Nullable SessionSpec session) {
            java.util.concurrent.BlockingQueue<Connection> queue = new java.util.concurrent.LinkedBlockingQueue<>();
            ListenSpec spec = ListenSpec.on(new InetSocketAddress(run.cmAddress(), 0)).backlog(16);
            ConnectionListener l = server.listen(session == null ? spec.raw() : spec.session(session),
                    request -> queue.add(request.accept()));
            return new ListenedConnections(l, queue);
        }

        Connection next() throws InterruptedException {
            Connection s = accepted.poll(EVENT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (s == null) {
                throw new AssertionError("no connection accepted within " + EVENT_WAIT);
            }
            if (!s.awaitState(ConnectionState.CONNECTED, EVENT_WAIT)) {
                throw new AssertionError(s + " not connected within " + EVENT_WAIT);
            }
            return s;
        }
    }

    private static int rounds(ScenarioRun run) {
        if (run.provider() instanceof SimulatedProvider sim) {
            sim.widenLibrdmacmRaces(SIMULATED_WINDOW);
            return SIMULATED_ROUNDS;
        }
        return KERNEL_ROUNDS;
    }

    private static void closeAt(CountDownLatch go, Connections connections) {
        try {
            go.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        connections.close();
    }

    private static void assertClosed(Connection c, Connection s, int round) {
        assertThat(c.state()).as("round %d: the client's connection", round).isEqualTo(ConnectionState.CLOSED);
        assertThat(s.state()).as("round %d: the server's connection", round).isEqualTo(ConnectionState.CLOSED);
        assertThat(c.resources()).as("round %d: the client's resources", round).isEmpty();
        assertThat(s.resources()).as("round %d: the server's resources", round).isEmpty();
    }

    private static void assertNothingLeft(ScenarioRun run) {
        assertThat(run.verbs().resources()).extracting(VerbsResource::kind)
                .as("what the races left in the graph")
                .doesNotContain(ResourceKind.CM_ID, ResourceKind.QUEUE_PAIR, ResourceKind.MEMORY_REGION);
    }

    /**
     * {@code count} requests of 256 checksummed bytes, one in flight, each echoed by the server: the number of
     * echoes whose checksum matched.
     */
    private static long exchange(Session session, int count) throws Exception {
        long checked = 0;
        byte[] payload = new byte[256];
        for (int i = 0; i < count; i++) {
            for (int b = 0; b < payload.length; b++) {
                payload[b] = (byte) (i * 31 + b);
            }
            long sum = crc(payload);
            Message echo = session.request(Message.of(payload.clone()).withHeader("crc", String.valueOf(sum)))
                    .get(EVENT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(crc(echo.toByteArray())).as("checksum of an echo on %s", session).isEqualTo(sum);
            assertThat(echo.header("crc")).isEqualTo(String.valueOf(sum));
            checked++;
        }
        return checked;
    }

    /**
     * {@code count} messages each way, one in flight: the client sends buffer 0, the server checks its
     * checksum and sends it back, the client checks it again. The number of checksums verified.
     */
    private static long rawExchange(Connection client, Connection server, int count) {
        long checked = 0;
        int size = Math.min(256, client.buffers().sendSize());
        byte[] payload = new byte[size];
        for (int i = 0; i < count; i++) {
            for (int b = 0; b < size; b++) {
                payload[b] = (byte) (i * 31 + b);
            }
            long sum = crc(payload);
            checked += relay(client, server, payload, sum);
            checked += relay(server, client, payload, sum);
        }
        return checked;
    }

    /** Sends {@code payload} from {@code from} to {@code to}; 1 once {@code to} received it with its checksum. */
    private static int relay(Connection from, Connection to, byte[] payload, long sum) {
        MemorySegment.copy(payload, 0, from.buffers().sendBuffer(0), ValueLayout.JAVA_BYTE, 0, payload.length);
        try (SendRequest send = from.queuePair().newSendRequest(1)) {
            send.wrId(1_000).opcode(SendOpcode.SEND).flags(SendFlag.SIGNALED)
                    .single(from.buffers().region(), from.buffers().sendOffset(0), payload.length);
            from.queuePair().postSend(send);
        }
        await(from, WcOpcode.SEND);
        int buffer = (int) await(to, WcOpcode.RECV);
        byte[] got = new byte[payload.length];
        MemorySegment.copy(to.buffers().receiveBuffer(buffer), ValueLayout.JAVA_BYTE, 0, got, 0, got.length);
        assertThat(crc(got)).as("checksum of a message to %s", to).isEqualTo(sum);
        to.postReceive(buffer);
        return 1;
    }

    /** The work request id of the next successful completion of {@code opcode} on the connection's CQ. */
    private static long await(Connection c, WcOpcode opcode) {
        try (WorkCompletions wcs = c.completionQueue().newWorkCompletions(1)) {
            long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                if (c.completionQueue().poll(wcs) == 1) {
                    assertThat(wcs.status(0)).as("%s on %s", opcode, c).isEqualTo(WcStatus.SUCCESS);
                    assertThat(wcs.opcode(0)).as("completion on %s", c).isEqualTo(opcode);
                    return wcs.wrId(0);
                }
                Thread.onSpinWait();
            }
            throw new AssertionError("no " + opcode + " completion on " + c + " within " + EVENT_WAIT);
        }
    }

    private static long crc(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }
}
