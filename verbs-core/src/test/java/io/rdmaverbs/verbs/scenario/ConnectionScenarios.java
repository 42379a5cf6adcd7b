package io.rdmaverbs.verbs.scenario;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.CmEvent;
import io.rdmaverbs.verbs.CmEventChannel;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionCloseReport;
import io.rdmaverbs.verbs.connection.ConnectionListener;
import io.rdmaverbs.verbs.connection.ConnectionRejectedException;
import io.rdmaverbs.verbs.connection.ConnectionRequest;
import io.rdmaverbs.verbs.connection.ConnectionState;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.ConnectSpec;
import io.rdmaverbs.verbs.connection.ListenSpec;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.attr.CmPortSpace;

import static io.rdmaverbs.verbs.scenario.CmScenarios.EVENT_WAIT;
import static io.rdmaverbs.verbs.scenario.CmScenarios.GO_AWAY;
import static io.rdmaverbs.verbs.scenario.CmScenarios.HELLO;
import static io.rdmaverbs.verbs.scenario.CmScenarios.WELCOME;
import static io.rdmaverbs.verbs.scenario.CmScenarios.ascii;
import static io.rdmaverbs.verbs.scenario.CmScenarios.crc;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link Connections} API on the target, rdma_cm loopback as in {@link CmScenarios}: a server and a
 * client manager on one graph, each with its event channel and event loop. What the scenarios record is
 * what an application sees (a connection's state, a connect's failure), so the differential check holds
 * the simulator to the kernel for the API's behaviour, not only for the verbs'.
 */
final class ConnectionScenarios {

    private ConnectionScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("Connections: listen, connect, a checksummed message each way, a graceful close the "
                        + "peer sees", ConnectionScenarios::exchangeAndClose),
                new Scenario("Connections: a rejected connect fails with the reason and the peer's private data, "
                        + "leaving nothing", ConnectionScenarios::rejected),
                new Scenario("Connections: an address nobody has fails the connect with ETIMEDOUT, leaving nothing",
                        ConnectionScenarios::unreachable),
                new Scenario("Connections: a listener with a pending request refuses a strict close naming it; "
                        + "cascade rejects it", ConnectionScenarios::listenerWithPendingRequest),
                new Scenario("Connections: closing a connection whose peer never answers the DREQ gives up after "
                        + "the disconnect timeout", ConnectionScenarios::peerNeverDisconnects),
                new Scenario("Connections: closing the server while connects are in flight ends every one and "
                        + "leaves nothing", ConnectionScenarios::closeWhileEventsArrive),
                new Scenario("Connections: a connection closed before its peer's RTU comes disconnects once more "
                        + "when its ESTABLISHED is read, and the close ends with the DREP", ConnectionScenarios::closedBeforeTheRtu));
    }

    static void exchangeAndClose(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            CompletableFuture<Connection> accepted = new CompletableFuture<>();
            ConnectionListener listener = steps.make("listen", () -> server.listen(
                    ListenSpec.on(new InetSocketAddress(run.cmAddress(), 0)).raw().backlog(4),
                    request -> accepted.complete(request.accept(WELCOME))));
            Connection c = steps.make("connect", () -> client.connect(ConnectSpec.to(listener.address()).raw()
                    .privateData(HELLO)));
            Connection s = accepted.get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);
            steps.observed("server connection", s.awaitState(ConnectionState.CONNECTED, EVENT_WAIT)
                    ? "CONNECTED" : s.state().name());
            assertThat(c.state()).isEqualTo(ConnectionState.CONNECTED);
            assertThat(Arrays.copyOf(c.peerPrivateData(), WELCOME.length)).isEqualTo(WELCOME);
            assertThat(Arrays.copyOf(s.peerPrivateData(), HELLO.length)).isEqualTo(HELLO);
            assertThat(s.peerAddress()).isEqualTo(c.localAddress());
            assertThat(c.resources()).extracting(VerbsResource::kind).containsExactly(ResourceKind.CM_ID,
                    ResourceKind.PROTECTION_DOMAIN, ResourceKind.COMPLETION_QUEUE, ResourceKind.QUEUE_PAIR,
                    ResourceKind.MEMORY_REGION);

            send(steps, "client", c, s, ascii("a message through the Connections API, checksummed"));
            send(steps, "server", s, c, ascii("and its answer, checksummed as well"));

            long start = System.nanoTime();
            steps.ok("close the client's connection", c::close);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).as("the server's connection answered the DREQ: no wait for the timeout")
                    .isLessThan(c.cmId().channel().disconnectTimeout());
            assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
            steps.observed("server connection", s.awaitDisconnected(EVENT_WAIT) ? s.state().name() : "still "
                    + s.state());
            steps.ok("close the server's connection", s::close);
            steps.ok("close the listener", listener::close);
        }
    }

    static void rejected(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            ConnectionListener listener = steps.make("listen", () -> server.listen(
                    ListenSpec.on(new InetSocketAddress(run.cmAddress(), 0)).raw(), request -> request.reject(GO_AWAY)));
            VerbsException e = steps.fails("connect", Errno.ECONNREFUSED,
                    () -> client.connect(ConnectSpec.to(listener.address()).raw().privateData(HELLO)));
            assertThat(e).isInstanceOfSatisfying(ConnectionRejectedException.class, r -> {
                assertThat(r.rejectReason()).isEqualTo(ConnectionRejectedException.CONSUMER_DEFINED);
                assertThat(Arrays.copyOf(r.peerPrivateData(), GO_AWAY.length)).isEqualTo(GO_AWAY);
                assertThat(r.getMessage()).contains("RDMA_CM_EVENT_REJECTED");
            });
            assertThat(client.connections()).isEmpty();
            eventually("the rejected request's id is released", () -> cmIds(run) == 1);
            steps.ok("close the listener", listener::close);
        }
    }

    static void unreachable(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        InetSocketAddress nobody = new InetSocketAddress(CmScenarios.nobodyNear(run.cmAddress()), 7471);
        try (Connections client = Connections.on(run.verbs(), "client")) {
            VerbsException e = steps.fails("connect to an address nobody has", Errno.ETIMEDOUT,
                    () -> client.connect(ConnectSpec.to(nobody).raw().timeout(Duration.ofMillis(300))));
            // With neighbour discovery the address does not resolve; on a NOARP netdev the REQ goes unanswered
            // (the IB CM's own UNREACHABLE would take its retries, about 100 s): the connect's watchdog ends it.
            assertThat(e.verb()).isEqualTo(run.neighbourDiscovery() ? "rdma_resolve_addr" : "rdma_connect");
            assertThat(client.connections()).isEmpty();
            assertThat(cmIds(run)).as("the failed connect's id is released").isZero();
            assertThat(run.verbs().resources()).extracting(VerbsResource::kind)
                    .doesNotContain(ResourceKind.QUEUE_PAIR, ResourceKind.PROTECTION_DOMAIN,
                            ResourceKind.COMPLETION_QUEUE, ResourceKind.MEMORY_REGION);
        }
    }

    static void listenerWithPendingRequest(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        try (Connections server = Connections.on(run.verbs(), "server");
                Connections client = Connections.on(run.verbs(), "client")) {
            List<ConnectionRequest> unanswered = new CopyOnWriteArrayList<>();
            ConnectionListener listener = steps.make("listen", () -> server.listen(
                    ListenSpec.on(new InetSocketAddress(run.cmAddress(), 0)).raw(), unanswered::add));
            CompletableFuture<Connection> connect = client.connectAsync(ConnectSpec.to(listener.address()).raw()
                    .timeout(Duration.ofSeconds(5)));
            // The loop thread makes the request pending; the handler sees it afterwards, on its lane.
            eventually("the request reaches the handler", () -> unanswered.size() == 1 || connect.isDone());
            if (unanswered.isEmpty()) {
                connect.join(); // it failed before its request was made: its failure is the scenario's
            }
            ConnectionRequest request = unanswered.getFirst();
            assertThat(listener.pendingRequests()).containsExactly(request);
            CloseRefusedException refused = steps.refused("close the listener, strict", listener::close);
            assertThat(refused.stuckReferences()).anySatisfy(s -> {
                assertThat(s.cause()).isEqualTo(Cause.PENDING_CONNECTION_REQUEST);
                assertThat(s.message()).contains(request.cmId().ref().toString());
            });
            assertThat(listener.cmId().isOpen()).as("a refused close touches nothing").isTrue();
            steps.ok("close the listener, cascade", () -> listener.close(ClosePolicy.CASCADE));
            assertThat(request.isAnswered()).isTrue();
            steps.observed("the connect", outcome(connect));
            assertThat(connect).failsWithin(EVENT_WAIT).withThrowableOfType(ExecutionException.class)
                    .havingCause().isInstanceOfSatisfying(ConnectionRejectedException.class,
                            r -> assertThat(r.rejectReason()).isEqualTo(ConnectionRejectedException.CONSUMER_DEFINED));
        }
    }

    /**
     * The server is the graph's own CM id, which acknowledges the DREQ's DISCONNECTED and never calls
     * {@code rdma_disconnect}: no DREP comes, the client's DISCONNECTED only after the IB CM's retries
     * (about 100 s), so the close waits the channel's disconnect timeout and then releases anyway.
     */
    static void peerNeverDisconnects(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        CmEventChannel serverChannel = run.verbs().createCmEventChannel("server-events");
        CmId listener = serverChannel.createId(CmPortSpace.TCP, "listener");
        steps.ok("rdma_bind_addr and rdma_listen", () -> {
            listener.bind(new InetSocketAddress(run.cmAddress(), 0));
            listener.listen(4);
        });
        try (Connections client = Connections.on(run.verbs(), "client")) {
            Duration timeout = Duration.ofMillis(500);
            client.channel().disconnectTimeout(timeout);
            CompletableFuture<Connection> connect = client.connectAsync(ConnectSpec.to(
                    Objects.requireNonNull(listener.localAddress())).raw());
            CmEvent request = CmScenarios.expectUnless(connect, steps, "server", serverChannel,
                    CmEventType.CONNECT_REQUEST);
            CmScenarios.Side server = CmScenarios.Side.on(steps, "server", request.cmId());
            steps.ok("rdma_accept", () -> server.id().accept(CmConnectionParams.defaults()));
            request.ack();
            CmScenarios.ack(steps, "server", serverChannel, CmEventType.ESTABLISHED);
            Connection c = connect.get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);

            long start = System.nanoTime();
            steps.ok("close the client's connection", c::close);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).as("waited the disconnect timeout for a DREP that never came")
                    .isGreaterThanOrEqualTo(timeout).isLessThan(timeout.plus(Duration.ofSeconds(5)));
            assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
            assertThat(c.resources()).as("released all the same").isEmpty();
            CmScenarios.ack(steps, "server", serverChannel, CmEventType.DISCONNECTED);
            server.close(steps, "server");
        }
        steps.ok("close the server's ids and channel, cascade", () -> serverChannel.close(ClosePolicy.CASCADE));
    }

    /**
     * The client is the graph's own CM id and reads its events only once the server's close has called
     * {@code rdma_disconnect}: its RTU (which librdmacm sends as it reads the REP) comes after that call. The
     * kernel's CM, not established when the call came, sent no DREQ; the close must disconnect once more when
     * the ESTABLISHED is read, or it waits its whole bound for a DISCONNECTED that only the destroy would bring.
     */
    static void closedBeforeTheRtu(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        CmEventChannel clientChannel = steps.make("rdma_create_event_channel, client",
                () -> run.verbs().createCmEventChannel("client-events"));
        try (Connections server = Connections.on(run.verbs(), "server")) {
            CompletableFuture<Connection> accepted = new CompletableFuture<>();
            ConnectionListener listener = steps.make("listen", () -> server.listen(
                    ListenSpec.on(new InetSocketAddress(run.cmAddress(), 0)).raw(),
                    request -> accepted.complete(request.accept())));
            CmId id = steps.make("rdma_create_id, client", () -> clientChannel.createId(CmPortSpace.TCP, "client"));
            steps.ok("rdma_resolve_addr", () -> id.resolveAddress(null, listener.address(), CmScenarios.RESOLVE));
            CmScenarios.ack(steps, "client", clientChannel, CmEventType.ADDR_RESOLVED);
            steps.ok("rdma_resolve_route", () -> id.resolveRoute(CmScenarios.RESOLVE));
            CmScenarios.ack(steps, "client", clientChannel, CmEventType.ROUTE_RESOLVED);
            CmScenarios.Side client = CmScenarios.Side.on(steps, "client", id);
            steps.ok("rdma_connect", () -> id.connect(CmConnectionParams.defaults()));
            Connection s = accepted.get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);
            steps.observed("server connection, before the RTU", s.state().name());

            long start = System.nanoTime();
            CompletableFuture<ConnectionCloseReport> closing = CompletableFuture.supplyAsync(() -> s.close(EVENT_WAIT));
            eventually("the close's rdma_disconnect returned", () -> s.cmId().disconnectSent() || closing.isDone());
            // Only now does the client read the REP, and so send its RTU.
            CmScenarios.ack(steps, "client", clientChannel, CmEventType.ESTABLISHED);
            CmScenarios.ack(steps, "client", clientChannel, CmEventType.DISCONNECTED);
            steps.ok("rdma_disconnect, client (the DREP)", id::disconnect);
            ConnectionCloseReport report = closing.get(EVENT_WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            steps.observed("the close's disconnect", report.disconnect().name());
            assertThat(report.disconnect()).isEqualTo(ConnectionCloseReport.Disconnect.BY_THIS_SIDE);
            assertThat(took).as("the close ended with the client's DREP, long before its bound")
                    .isLessThan(EVENT_WAIT.dividedBy(2));
            assertThat(report.released().isComplete()).isTrue();
            assertThat(s.state()).isEqualTo(ConnectionState.CLOSED);
            client.close(steps, "client");
            steps.ok("rdma_destroy_id, client", id::close);
            steps.ok("close the listener", listener::close);
        }
        steps.ok("rdma_destroy_event_channel, client", clientChannel::close);
    }

    static void closeWhileEventsArrive(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        int connects = 4;
        Connections server = Connections.on(run.verbs(), "server");
        Connections client = Connections.on(run.verbs(), "client");
        try {
            ConnectionListener listener = steps.make("listen", () -> server.listen(
                    ListenSpec.on(new InetSocketAddress(run.cmAddress(), 0)).raw().backlog(connects),
                    ConnectionRequest::accept));
            List<CompletableFuture<Connection>> inFlight = new ArrayList<>();
            for (int i = 0; i < connects; i++) {
                inFlight.add(client.connectAsync(ConnectSpec.to(listener.address()).raw()));
            }
            eventually("a request reached the server", () -> !server.connections().isEmpty()
                    || !listener.pendingRequests().isEmpty() || inFlight.stream().anyMatch(CompletableFuture::isDone));
            steps.ok("close the server while the connects are in flight", server::close);
            for (CompletableFuture<Connection> f : inFlight) {
                try {
                    Connection c = f.get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);
                    assertThat(c.awaitDisconnected(EVENT_WAIT)).as("%s learns that the server closed", c).isTrue();
                } catch (ExecutionException failedAsTheServerClosed) {
                    assertThat(failedAsTheServerClosed.getCause()).isInstanceOf(RuntimeException.class);
                }
            }
            steps.observed("every connect", "ended");
            steps.ok("close the client", client::close);
            assertThat(cmIds(run)).as("no CM id of either side is left").isZero();
        } finally {
            client.close();
            server.close();
        }
    }

    // ---- building blocks ----------------------------------------------------------------------------

    /** Sends {@code message} from {@code from}'s send buffer 0; {@code to}'s receive buffer holds it, checksum for checksum. */
    private static void send(Steps steps, String side, Connection from, Connection to, byte[] message)
            throws Exception {
        MemorySegment.copy(message, 0, from.buffers().sendBuffer(0), ValueLayout.JAVA_BYTE, 0, message.length);
        long sent = crc(from.buffers().sendBuffer(0), 0, message.length);
        try (SendRequest send = from.queuePair().newSendRequest(1)) {
            send.wrId(100).opcode(SendOpcode.SEND).flags(SendFlag.SIGNALED)
                    .single(from.buffers().region(), from.buffers().sendOffset(0), message.length);
            steps.ok("ibv_post_send, " + side, () -> from.queuePair().postSend(send));
        }
        steps.observed("send completion, " + side, String.valueOf(completion(from, WcOpcode.SEND)));
        long buffer = completion(to, WcOpcode.RECV);
        assertThat(crc(to.buffers().receiveBuffer((int) buffer), 0, message.length))
                .as("the checksum of %s's message", side).isEqualTo(sent);
        steps.observed("receive of " + side + "'s message", "checksum matches");
        to.postReceive((int) buffer);
    }

    /** Polls the connection's CQ for one completion of {@code opcode}: its work request id. */
    private static long completion(Connection c, WcOpcode opcode) {
        try (WorkCompletions wcs = c.completionQueue().newWorkCompletions(4)) {
            long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                int n = c.completionQueue().poll(wcs);
                for (int i = 0; i < n; i++) {
                    assertThat(wcs.status(i)).as("%s on %s", opcode, c).isEqualTo(WcStatus.SUCCESS);
                    if (wcs.opcode(i) == opcode) {
                        return wcs.wrId(i);
                    }
                }
                Thread.onSpinWait();
            }
            throw new AssertionError("no " + opcode + " completion on " + c + " in " + EVENT_WAIT);
        }
    }

    private static long cmIds(ScenarioRun run) {
        return run.verbs().resources().stream().filter(r -> r.kind() == ResourceKind.CM_ID).count();
    }

    private static String outcome(CompletableFuture<?> f) {
        try {
            f.get(EVENT_WAIT.toSeconds(), TimeUnit.SECONDS);
            return "connected";
        } catch (ExecutionException e) {
            return "failed: " + Steps.resultOf(e.getCause());
        } catch (Exception e) {
            return "did not end: " + e;
        }
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not within " + EVENT_WAIT);
            }
            Thread.sleep(5);
        }
    }
}
