package io.rdmaverbs.verbs.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32;

import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.CloseReport;
import io.rdmaverbs.verbs.CmIdRole;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.simulated.ResourceCounts;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Connections between two {@link Verbs} graphs on two simulated hosts: the handshake, data, disconnect,
 * the failures a connect can meet, and closing with requests pending or events arriving.
 */
class ConnectionsTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final TwoHosts hosts = new TwoHosts();

    @AfterEach
    void closeAll() {
        hosts.close();
    }

    private ConnectionListener accepting() {
        return hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw().backlog(8), ConnectionRequest::accept);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static long crc(MemorySegment segment, int length) {
        CRC32 crc = new CRC32();
        crc.update(segment.asSlice(0, length).asByteBuffer());
        return crc.getValue();
    }

    /** Nothing of a connection is left on the client: no CM id, QP, PD, CQ or MR, in the graph or the device. */
    private void assertNothingOfAConnectionLeftOnTheClient() {
        assertThat(hosts.clientVerbs.resources()).extracting(VerbsResource::kind)
                .doesNotContain(ResourceKind.CM_ID, ResourceKind.QUEUE_PAIR, ResourceKind.PROTECTION_DOMAIN,
                        ResourceKind.COMPLETION_QUEUE, ResourceKind.MEMORY_REGION);
        ResourceCounts counts = hosts.clientHost.resourceCounts("rxe1");
        assertThat(counts.objects()).as("%s", counts).isZero();
    }

    /** Polls {@code connection}'s CQ until one completion of {@code opcode}; its work request id. */
    private static long completion(Connection connection, WcOpcode opcode) {
        try (WorkCompletions wcs = connection.completionQueue().newWorkCompletions(4)) {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                int n = connection.completionQueue().poll(wcs);
                for (int i = 0; i < n; i++) {
                    assertThat(wcs.status(i)).isEqualTo(WcStatus.SUCCESS);
                    if (wcs.opcode(i) == opcode) {
                        return wcs.wrId(i);
                    }
                }
                Thread.onSpinWait();
            }
            throw new AssertionError("no " + opcode + " completion on " + connection);
        }
    }

    @Test
    void aSendOnOneSideArrivesIntactInAReceiveBufferTheOtherSidePostedBeforeTheHandshake() throws Exception {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(),
                request -> accepted.complete(request.accept(ascii("welcome"))));
        assertThat(listener.address().getPort()).as("port 0 picked one").isPositive();

        Connection c = hosts.client.connect(ConnectSpec.to(listener.address()).raw().privateData(ascii("hello")));

        assertThat(c.state()).isEqualTo(ConnectionState.CONNECTED);
        assertThat(new String(c.peerPrivateData(), 0, 7, StandardCharsets.US_ASCII)).isEqualTo("welcome");
        Connection s = accepted.get(5, TimeUnit.SECONDS);
        assertThat(s.awaitState(ConnectionState.CONNECTED, WAIT)).isTrue();
        assertThat(new String(s.peerPrivateData(), 0, 5, StandardCharsets.US_ASCII)).isEqualTo("hello");
        assertThat(s.peerAddress()).isEqualTo(c.localAddress());
        assertThat(hosts.clientVerbs.resources()).containsAll(c.resources());
        assertThat(c.resources()).extracting(VerbsResource::kind).containsExactly(ResourceKind.CM_ID,
                ResourceKind.PROTECTION_DOMAIN, ResourceKind.COMPLETION_QUEUE, ResourceKind.QUEUE_PAIR,
                ResourceKind.MEMORY_REGION);
        assertThat(c.cmId().context()).isNotNull().satisfies(ctx -> assertThat(ctx.isAdopted()).isTrue());

        byte[] message = ascii("a message across two simulated hosts, checksummed");
        MemorySegment.copy(message, 0, c.buffers().sendBuffer(0), ValueLayout.JAVA_BYTE, 0, message.length);
        long sent = crc(c.buffers().sendBuffer(0), message.length);
        try (SendRequest send = c.queuePair().newSendRequest(1)) {
            send.wrId(77).opcode(SendOpcode.SEND).flags(SendFlag.SIGNALED)
                    .single(c.buffers().region(), c.buffers().sendOffset(0), message.length);
            c.queuePair().postSend(send);
        }

        assertThat(completion(c, WcOpcode.SEND)).isEqualTo(77);
        long buffer = completion(s, WcOpcode.RECV);
        assertThat(crc(s.buffers().receiveBuffer((int) buffer), message.length)).isEqualTo(sent);
        assertThat(s.buffers().receiveBuffer((int) buffer)).as("sliced once, not per receive")
                .isSameAs(s.buffers().receiveBuffer((int) buffer));
        assertThat(c.buffers().sendBuffer(0)).isSameAs(c.buffers().sendBuffer(0));
        s.postReceive((int) buffer);
    }

    @Test
    void aDisconnectIsSeenByThePeerAndBothQueuePairsFlush() throws Exception {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        CountDownLatch peerSawIt = new CountDownLatch(1);
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(), request -> {
            Connection s = request.accept();
            s.onDisconnect(x -> peerSawIt.countDown());
            accepted.complete(s);
        });
        Connection c = hosts.client.connect(ConnectSpec.to(listener.address()).raw());
        assertThat(accepted.get(5, TimeUnit.SECONDS).awaitState(ConnectionState.CONNECTED, WAIT)).isTrue();

        c.disconnect();

        assertThat(c.awaitDisconnected(WAIT)).isTrue();
        assertThat(peerSawIt.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(accepted.get().state()).isEqualTo(ConnectionState.DISCONNECTED);
        c.close();
        assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
        assertNothingOfAConnectionLeftOnTheClient();
    }

    @Test
    void closingAConnectionDisconnectsGracefullySoThePeerLearnsOfIt() throws Exception {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(),
                request -> accepted.complete(request.accept()));
        Connection c = hosts.client.connect(ConnectSpec.to(listener.address()).raw());
        assertThat(accepted.get(5, TimeUnit.SECONDS).awaitState(ConnectionState.CONNECTED, WAIT)).isTrue();

        c.close();

        assertThat(accepted.get().awaitDisconnected(WAIT)).isTrue();
        assertNothingOfAConnectionLeftOnTheClient();
    }

    @Test
    void aBoundedCloseDisconnectsAndReportsEachReleaseInDependencyOrder() throws Exception {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(),
                request -> accepted.complete(request.accept()));
        Connection c = hosts.client.connect(ConnectSpec.to(listener.address()).raw());
        assertThat(accepted.get(5, TimeUnit.SECONDS).awaitState(ConnectionState.CONNECTED, WAIT)).isTrue();
        String qp = c.queuePair().ref().toString();

        CloseReport report = c.close(WAIT).released();

        assertThat(report.isComplete()).isTrue();
        // An event of the id still unacknowledged is acknowledged first (rdma_ack_cm_event(3)).
        List<ResourceRef> released = report.closed().stream().filter(r -> r.kind() != ResourceKind.CM_EVENT).toList();
        assertThat(released).extracting(ResourceRef::kind).containsExactly(ResourceKind.QUEUE_PAIR,
                ResourceKind.CM_ID, ResourceKind.MEMORY_REGION, ResourceKind.PROTECTION_DOMAIN,
                ResourceKind.COMPLETION_QUEUE);
        assertThat(released.getFirst()).satisfies(r -> {
            assertThat(r.toString()).isEqualTo(qp);
            assertThat(r.releaseVerb()).as("a QP made on a CM id").isEqualTo("rdma_destroy_qp");
        });
        assertThat(accepted.get().awaitDisconnected(WAIT)).as("the other side saw DISCONNECTED").isTrue();
        assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
        assertThat(c.close(WAIT).released().closed()).as("a second close releases nothing").isEmpty();
        assertNothingOfAConnectionLeftOnTheClient();
    }

    /** A raw connection both sides hold, the server's events held from its accept on (its ESTABLISHED unread). */
    private record AcceptedUnread(Connection client, Connection server) {
    }

    private AcceptedUnread acceptedWithServerEventsHeld() throws Exception {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(),
                request -> {
                    // The server's reader is held from here: the accept's ESTABLISHED stays unread, as under load.
                    hosts.serverHost.holdCmEvents(true);
                    accepted.complete(request.accept());
                });
        Connection c = hosts.client.connect(ConnectSpec.to(listener.address()).raw());
        return new AcceptedUnread(c, accepted.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aConnectionClosedAfterItsAcceptBeforeItsEstablishedIsReadIsDisconnectedByThisSide() throws Exception {
        try {
            AcceptedUnread a = acceptedWithServerEventsHeld();
            assertThat(a.client().state()).isEqualTo(ConnectionState.CONNECTED);
            assertThat(a.server().state()).isEqualTo(ConnectionState.CONNECTING);

            ConnectionCloseReport report = a.server().close(Duration.ofMillis(200));

            assertThat(report.disconnect()).as("the client is connected: the close disconnects it")
                    .isEqualTo(ConnectionCloseReport.Disconnect.BY_THIS_SIDE);
            assertThat(a.client().awaitDisconnected(WAIT)).as("the client saw DISCONNECTED").isTrue();
            assertThat(report.released().isComplete()).isTrue();
        } finally {
            hosts.serverHost.holdCmEvents(false);
        }
    }

    @Test
    void anEstablishedReadAfterTheClosesDisconnectMakesItDisconnectOnceMoreForTheDreqTheFirstCouldNotSend()
            throws Exception {
        try {
            AcceptedUnread a = acceptedWithServerEventsHeld();
            long before = disconnectsOnServer();
            CompletableFuture<ConnectionCloseReport> closing =
                    CompletableFuture.supplyAsync(() -> a.server().close(WAIT));
            long until = System.nanoTime() + WAIT.toNanos();
            while (disconnectsOnServer() == before && System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
            assertThat(disconnectsOnServer()).as("the close's rdma_disconnect, before ESTABLISHED is read")
                    .isEqualTo(before + 1);

            // Its ESTABLISHED is read only now, after the disconnect, as when the RTU comes late on the kernel.
            hosts.serverHost.holdCmEvents(false);
            ConnectionCloseReport report = closing.get(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);

            assertThat(disconnectsOnServer()).as("once more once ESTABLISHED was read").isEqualTo(before + 2);
            assertThat(report.disconnect()).isEqualTo(ConnectionCloseReport.Disconnect.BY_THIS_SIDE);
            assertThat(report.released().isComplete()).isTrue();
            assertThat(a.client().awaitDisconnected(WAIT)).as("the client saw DISCONNECTED").isTrue();
        } finally {
            hosts.serverHost.holdCmEvents(false);
        }
    }

    private long disconnectsOnServer() {
        return hosts.serverHost.faults().callsByVerb().getOrDefault("rdma_disconnect", 0L);
    }

    @Test
    void aBoundedCloseWhoseDisconnectedNeverComesReleasesOnceTheWaitIsOver() throws Exception {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(),
                request -> accepted.complete(request.accept()));
        Connection c = hosts.client.connect(ConnectSpec.to(listener.address()).raw());
        assertThat(accepted.get(5, TimeUnit.SECONDS).awaitState(ConnectionState.CONNECTED, WAIT)).isTrue();
        // The other side's port goes down: its DREP never comes back, so no DISCONNECTED here.
        hosts.serverHost.setPortState("rxe0", 1, PortState.DOWN);
        long started = System.nanoTime();

        CloseReport report = c.close(Duration.ofMillis(300)).released();

        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(took).isLessThan(Duration.ofSeconds(2));
        assertThat(report.isComplete()).isTrue();
        assertNothingOfAConnectionLeftOnTheClient();
    }

    @Test
    void aBoundedCloseWhoseReleaseIsRefusedReportsWhatIsLeftWithoutThrowingAndALaterCloseFinishesIt()
            throws Exception {
        ConnectionListener listener = accepting();
        Connection c = hosts.client.connect(ConnectSpec.to(listener.address()).raw());
        hosts.clientHost.faults().failCall("ibv_dealloc_pd", 1, Errno.EBUSY);

        CloseReport report = c.close(WAIT).released();

        assertThat(report.left()).singleElement().satisfies(l -> {
            assertThat(l.resource().kind()).isEqualTo(ResourceKind.PROTECTION_DOMAIN);
            assertThat(l.failure().errno()).isEqualTo(Errno.EBUSY);
        });
        assertThat(report.closed()).extracting(ResourceRef::kind).contains(ResourceKind.QUEUE_PAIR,
                ResourceKind.CM_ID, ResourceKind.MEMORY_REGION, ResourceKind.COMPLETION_QUEUE)
                .doesNotContain(ResourceKind.PROTECTION_DOMAIN);
        assertThat(c.state()).as("not closed while a resource is left").isNotEqualTo(ConnectionState.CLOSED);

        CloseReport again = c.close(Duration.ZERO).released();

        assertThat(again.closed()).extracting(ResourceRef::kind).containsExactly(ResourceKind.PROTECTION_DOMAIN);
        assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
        assertNothingOfAConnectionLeftOnTheClient();
    }

    @Test
    void aRejectFailsTheConnectWithTheReasonAndThePeersPrivateDataLeavingNothing() {
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(),
                request -> request.reject(ascii("busy")));

        assertThatThrownBy(() -> hosts.client.connect(ConnectSpec.to(listener.address()).raw()))
                .isInstanceOfSatisfying(ConnectionRejectedException.class, e -> {
                    assertThat(e.verb()).isEqualTo("rdma_connect");
                    assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED);
                    assertThat(e.rejectReason()).isEqualTo(ConnectionRejectedException.CONSUMER_DEFINED);
                    assertThat(new String(e.peerPrivateData(), 0, 4, StandardCharsets.US_ASCII)).isEqualTo("busy");
                    assertThat(e.getMessage()).contains("RDMA_CM_EVENT_REJECTED", "client/conn-");
                });
        assertNothingOfAConnectionLeftOnTheClient();
        // The server releases the request's id right after its rdma_reject, which the client may see first.
        eventually(() -> assertThat(hosts.serverVerbs.resources()).as("only the listener's id is left")
                .extracting(VerbsResource::kind).containsOnlyOnce(ResourceKind.CM_ID));
    }

    private static void eventually(Runnable assertion) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                assertion.run();
                return;
            } catch (AssertionError notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void aHandlerThatThrowsHasItsRequestRejected() {
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(), request -> {
            throw new IllegalStateException("the handler's own bug");
        });

        assertThatThrownBy(() -> hosts.client.connect(ConnectSpec.to(listener.address()).raw()))
                .isInstanceOf(ConnectionRejectedException.class);
        assertThat(listener.pendingRequests()).isEmpty();
    }

    @Test
    void nothingListeningOnThePortIsARejectWithInvalidServiceId() {
        InetSocketAddress nobody = new InetSocketAddress(hosts.serverIp, 4242);
        assertThatThrownBy(() -> hosts.client.connect(ConnectSpec.to(nobody).raw()))
                .isInstanceOfSatisfying(ConnectionRejectedException.class,
                        e -> assertThat(e.rejectReason()).isEqualTo(ConnectionRejectedException.INVALID_SERVICE_ID));
        assertNothingOfAConnectionLeftOnTheClient();
    }

    @Test
    void anAddressNoDeviceHasFailsWithAddrErrorAndEtimedoutLeavingNothing() throws Exception {
        InetSocketAddress nowhere = new InetSocketAddress(InetAddress.getByName("fe80::dead:beef"), 7471);

        assertThatThrownBy(() -> hosts.client.connect(ConnectSpec.to(nowhere).raw().timeout(Duration.ofMillis(100))))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("rdma_resolve_addr");
                    assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT);
                    assertThat(e.getMessage()).contains("RDMA_CM_EVENT_ADDR_ERROR", "client/conn-");
                });
        assertNothingOfAConnectionLeftOnTheClient();
    }

    @Test
    void aPeerWhosePortIsDownIsUnreachableAfterTheTimeoutLeavingNothing() {
        ConnectionListener listener = accepting();
        hosts.serverHost.setPortState("rxe0", 1, PortState.DOWN);
        hosts.clientHost.setCmRetryTimeout(Duration.ofMillis(100)); // the CM gives up on the REQ before the watchdog

        ConnectSpec spec = ConnectSpec.to(listener.address()).raw().timeout(Duration.ofMillis(100));
        assertThatThrownBy(() -> hosts.client.connect(spec))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("rdma_connect");
                    assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT);
                    assertThat(e.getMessage()).contains("RDMA_CM_EVENT_UNREACHABLE");
                });
        assertNothingOfAConnectionLeftOnTheClient();
    }

    @Test
    void aSecondListenerOnThePortInUseFailsWithEaddrinuseLeavingNothing() {
        ConnectionListener first = accepting();
        int before = hosts.serverVerbs.resources().size();

        assertThatThrownBy(() -> hosts.server.listen(ListenSpec.on(first.address()).raw(), ConnectionRequest::accept))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("rdma_bind_addr");
                    assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE);
                });
        assertThat(hosts.serverVerbs.resources()).hasSize(before);
        assertThat(hosts.server.listeners()).containsExactly(first);
    }

    @Test
    void aListenerWithAPendingRequestRefusesAStrictCloseAndACascadeRejectsIt() {
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(), request -> {
            // Neither accepted nor rejected: the request stays pending.
        });
        CompletableFuture<Connection> connecting = hosts.client.connectAsync(ConnectSpec.to(listener.address()).raw());
        eventually(() -> assertThat(listener.pendingRequests()).isNotEmpty());
        ConnectionRequest pending = listener.pendingRequests().getFirst();

        assertThatThrownBy(listener::close).isInstanceOfSatisfying(CloseRefusedException.class,
                e -> assertThat(e.getMessage()).contains(pending.cmId().name()));
        assertThat(listener.cmId().isOpen()).isTrue();

        listener.close(io.rdmaverbs.verbs.ClosePolicy.CASCADE);

        assertThat(pending.cmId().isClosed()).isTrue();
        assertThat(connecting).failsWithin(WAIT).withThrowableThat().havingCause()
                .isInstanceOf(ConnectionRejectedException.class);
        assertNothingOfAConnectionLeftOnTheClient();
    }

    @Test
    void aSlowHandlerDoesNotStallASecondConnection() throws Exception {
        CountDownLatch slowHandlerMayGo = new CountDownLatch(1);
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(), request -> {
            if (request.privateData()[0] == 's') {
                slowHandlerMayGo.await();
            }
            request.accept();
        });
        CompletableFuture<Connection> slow = hosts.client.connectAsync(ConnectSpec.to(listener.address()).raw()
                .privateData(ascii("slow")));
        eventually(() -> assertThat(listener.pendingRequests()).isNotEmpty());

        Connection fast = assertTimeoutPreemptively(WAIT,
                () -> hosts.client.connect(ConnectSpec.to(listener.address()).raw().privateData(ascii("fast"))));

        assertThat(fast.state()).isEqualTo(ConnectionState.CONNECTED);
        assertThat(slow).isNotDone();
        slowHandlerMayGo.countDown();
        assertThat(slow.get(5, TimeUnit.SECONDS).state()).isEqualTo(ConnectionState.CONNECTED);
    }

    @Test
    void closingTheManagerDoesNotWaitForAHandlerThatNeverReturnsBeyondItsBound() {
        CountDownLatch never = new CountDownLatch(1);
        ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(), request -> {
            never.await();
            request.accept();
        });
        CompletableFuture<Connection> connecting = hosts.client.connectAsync(ConnectSpec.to(listener.address()).raw());
        eventually(() -> assertThat(listener.pendingRequests()).isNotEmpty());

        assertTimeoutPreemptively(Duration.ofSeconds(6), () -> hosts.server.close());

        assertThat(connecting).failsWithin(WAIT).withThrowableThat().havingCause()
                .isInstanceOf(ConnectionRejectedException.class);
        assertThat(hosts.serverHost.resourceCounts("rxe0").objects()).isZero();
    }

    @Test
    void closingTheManagerClosesItsConnectionsGracefullyAndItsListeners() {
        ConnectionListener listener = accepting();
        Connection c = hosts.client.connect(ConnectSpec.to(listener.address()).raw());
        eventually(() -> assertThat(hosts.server.connections()).hasSize(1));

        assertTimeoutPreemptively(WAIT, () -> hosts.server.close());

        assertThat(c.awaitDisconnected(WAIT)).as("the client saw the server's disconnect").isTrue();
        assertThat(listener.cmId().isClosed()).isTrue();
        assertThat(hosts.serverVerbs.resources()).extracting(VerbsResource::kind).doesNotContain(ResourceKind.CM_ID,
                ResourceKind.CM_EVENT_CHANNEL, ResourceKind.QUEUE_PAIR);
        assertThat(hosts.serverHost.resourceCounts("rxe0").objects()).isZero();
        assertThatThrownBy(() -> hosts.server.connectAsync(ConnectSpec.to(listener.address()).raw()))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingTheManagerWhileRequestsKeepArrivingNeitherHangsNorLeavesAnything() throws Exception {
        ConnectionListener listener = accepting();
        Thread connector = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 200; i++) {
                try {
                    hosts.client.connectAsync(ConnectSpec.to(listener.address()).raw().timeout(Duration.ofMillis(200)));
                } catch (RuntimeException closing) {
                    return;
                }
            }
        });
        eventually(() -> assertThat(hosts.server.connections()).isNotEmpty());

        assertTimeoutPreemptively(Duration.ofSeconds(15), () -> hosts.server.close());
        connector.join(5000);

        assertThat(hosts.serverVerbs.resources()).extracting(VerbsResource::kind).doesNotContain(ResourceKind.CM_ID,
                ResourceKind.CM_EVENT, ResourceKind.QUEUE_PAIR, ResourceKind.MEMORY_REGION);
        assertThat(hosts.serverHost.resourceCounts("rxe0").objects()).isZero();
        assertTimeoutPreemptively(Duration.ofSeconds(15), () -> hosts.client.close());
        assertNothingOfAConnectionLeftOnTheClient();
    }

    @Test
    void aConnectionSpecThatCannotBeBuiltIsRefusedNamingTheField() {
        assertThatThrownBy(() -> ConnectionSpec.rc(8, 1024).withCompletionQueueEntries(4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("completionQueueEntries");
        assertThatThrownBy(() -> ConnectionSpec.rc(8, 1024).withReceiveBuffers(9, 1024))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("receiveQueueDepth 8");
        assertThatThrownBy(() -> ConnectionSpec.rc(8, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("receiveBufferSize");
        InetSocketAddress to = new InetSocketAddress(hosts.serverIp, 1);
        assertThatThrownBy(() -> ConnectSpec.to(to).raw().privateData(new byte[57]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("56");
        assertThatThrownBy(() -> ListenSpec.on(InetSocketAddress.createUnresolved("server", 1)).raw())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unresolved");
    }

    @Test
    void aConnectionWithACompletionChannelOwnsItToo() {
        ConnectionListener listener = accepting();

        Connection c = hosts.client.connect(ConnectSpec.to(listener.address()).raw()
                .connection(ConnectionSpec.rc(4, 256).withCompletionChannel(true)));

        assertThat(c.completionChannel()).isNotNull();
        assertThat(c.completionQueue().channel()).isSameAs(c.completionChannel());
        assertThat(c.resources()).contains(c.completionChannel());
        assertThat(c.cmId().role()).isEqualTo(CmIdRole.CONNECTED);
        c.close();
        assertThat(List.of(c.completionChannel(), c.queuePair(), c.cmId())).allMatch(VerbsResource::isClosed);
    }

    /**
     * {@link PortWait}: a connection lost with its port down is released only once the port is ACTIVE again
     * (a DREQ sent on a down port reaches nobody, and on rxe with Linux 6.12 leaves the device's GSI QP in
     * ERR), and never held back longer than its bound, its owner's stop or its manager's close.
     */
    @Nested
    class PortWaitOfAConnection {

        private Connection connection;

        @BeforeEach
        void connect() throws Exception {
            CompletableFuture<Connection> accepted = new CompletableFuture<>();
            ConnectionListener listener = hosts.server.listen(ListenSpec.on(hosts.anyServerPort()).raw(),
                    request -> accepted.complete(request.accept()));
            connection = hosts.client.connect(ConnectSpec.to(listener.address()).raw());
            assertThat(accepted.get(5, TimeUnit.SECONDS).awaitState(ConnectionState.CONNECTED, WAIT)).isTrue();
        }

        @AfterEach
        void portBack() {
            hosts.clientHost.setPortState("rxe1", 1, PortState.ACTIVE);
        }

        @Test
        void aPortThatIsActiveHoldsNothingBack() {
            long started = System.nanoTime();

            assertThat(PortWait.untilActive(connection, WAIT, () -> false)).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
        }

        @Test
        void aPortThatIsDownHoldsTheReleaseUntilItIsActiveAgain() throws Exception {
            hosts.clientHost.setPortState("rxe1", 1, PortState.DOWN);
            CompletableFuture<Optional<PortWait.Held>> wait = CompletableFuture
                    .supplyAsync(() -> PortWait.untilActive(connection, WAIT, () -> false));

            Thread.sleep(500);
            assertThat(wait).as("held while the port is down").isNotDone();
            hosts.clientHost.setPortState("rxe1", 1, PortState.ACTIVE);

            PortWait.Held held = wait.get(5, TimeUnit.SECONDS).orElseThrow();
            assertThat(held.outcome()).isEqualTo(PortWait.Outcome.ACTIVE);
            assertThat(held.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(500));
            assertThat(held).hasToString("port 1 of rxe1 was down: released once it was ACTIVE again after "
                    + held.waited().toMillis() + " ms");
        }

        @Test
        void aPortThatStaysDownIsWaitedForNoLongerThanTheBound() {
            hosts.clientHost.setPortState("rxe1", 1, PortState.DOWN);

            PortWait.Held held = PortWait.untilActive(connection, Duration.ofMillis(300), () -> false).orElseThrow();

            assertThat(held.outcome()).isEqualTo(PortWait.Outcome.STILL_DOWN);
            assertThat(held.waited()).isBetween(Duration.ofMillis(300), Duration.ofSeconds(2));
        }

        @Test
        void theOwnersStopEndsTheWait() throws Exception {
            hosts.clientHost.setPortState("rxe1", 1, PortState.DOWN);
            AtomicBoolean stopping = new AtomicBoolean();
            CompletableFuture<Optional<PortWait.Held>> wait = CompletableFuture
                    .supplyAsync(() -> PortWait.untilActive(connection, WAIT, stopping::get));

            Thread.sleep(300);
            stopping.set(true);

            assertThat(wait.get(2, TimeUnit.SECONDS).orElseThrow().outcome()).isEqualTo(PortWait.Outcome.STOPPING);
        }

        @Test
        void theManagersCloseEndsTheWait() throws Exception {
            hosts.clientHost.setPortState("rxe1", 1, PortState.DOWN);
            CompletableFuture<Optional<PortWait.Held>> wait = CompletableFuture
                    .supplyAsync(() -> PortWait.untilActive(connection, WAIT, () -> false));

            Thread.sleep(300);
            hosts.client.close(Duration.ofMillis(500));

            assertThat(wait.get(2, TimeUnit.SECONDS).orElseThrow().outcome()).isIn(PortWait.Outcome.STOPPING,
                    PortWait.Outcome.NOT_QUERYABLE);
        }
    }
}
