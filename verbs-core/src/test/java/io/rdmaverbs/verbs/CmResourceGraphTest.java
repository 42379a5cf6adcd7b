package io.rdmaverbs.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.StuckReference.Consequence;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedNetwork;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The connection manager's objects in the resource graph, on two simulated hosts (two providers on one
 * network): roles, adopted contexts, wrong-state refusals, and each release rule under STRICT, CASCADE and
 * ATTEMPT, with what the peer sees.
 */
class CmResourceGraphTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final SimulatedNetwork network = SimulatedNetwork.create();
    private final SimulatedProvider serverHost = SimulatedProvider.on(network, DeviceProfile.rxe("rxe0"));
    private final SimulatedProvider clientHost = SimulatedProvider.on(network, DeviceProfile.rxe("rxe1"));
    private final Verbs server = Verbs.using(serverHost);
    private final Verbs client = Verbs.using(clientHost);
    private final InetSocketAddress serverAddress = new InetSocketAddress(serverHost.addresses("rxe0").getFirst(), 7471);
    private final CmEventChannel serverChannel = server.createCmEventChannel("server-events");
    private final CmEventChannel clientChannel = client.createCmEventChannel("client-events");

    @AfterEach
    void closeBoth() {
        client.close();
        server.close();
    }

    private static CmEvent expect(CmEventChannel channel, CmEventType type) {
        CmEvent event = channel.awaitEvent(TIMEOUT).orElseThrow(() -> new AssertionError("no event on " + channel));
        assertThat(event.type()).as("%s", event).isEqualTo(type);
        return event;
    }

    private static void expectAndAck(CmEventChannel channel, CmEventType type) {
        expect(channel, type).ack();
    }

    private CmId listening() {
        CmId listener = serverChannel.createId(CmPortSpace.TCP, "listener");
        listener.bind(serverAddress);
        listener.listen(8);
        return listener;
    }

    private CmId resolved() {
        CmId active = clientChannel.createId(CmPortSpace.TCP, "active");
        active.resolveAddress(null, serverAddress, TIMEOUT);
        expectAndAck(clientChannel, CmEventType.ADDR_RESOLVED);
        active.resolveRoute(TIMEOUT);
        expectAndAck(clientChannel, CmEventType.ROUTE_RESOLVED);
        return active;
    }

    private static QueuePair queuePairOn(CmId id) {
        DeviceContext ctx = id.context();
        assertThat(ctx).isNotNull();
        ProtectionDomain pd = ctx.allocateProtectionDomain();
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16));
        return id.createQueuePair(pd, QueuePairSpec.rc(cq, cq, QpCapabilities.of(8, 8)));
    }

    /** A resolved active id with a QP, its {@code rdma_connect} called: the listener's CONNECT_REQUEST is due. */
    private CmId connecting() {
        CmId active = resolved();
        queuePairOn(active);
        active.connect(CmConnectionParams.defaults());
        return active;
    }

    /** The active id connected to a passive id of the listener, both with QPs, every event acknowledged. */
    private record Connection(CmId active, CmId passive) {
    }

    private Connection connected(CmId listener) {
        CmId active = connecting();
        CmEvent request = expect(serverChannel, CmEventType.CONNECT_REQUEST);
        assertThat(request.listenId()).isSameAs(listener);
        CmId passive = request.cmId();
        queuePairOn(passive);
        passive.accept(CmConnectionParams.defaults());
        request.ack();
        expectAndAck(clientChannel, CmEventType.ESTABLISHED);
        expectAndAck(serverChannel, CmEventType.ESTABLISHED);
        return new Connection(active, passive);
    }

    private static List<Cause> causes(VerbsResource r) {
        return r.stuckReferences().stream().map(StuckReference::cause).toList();
    }

    // ---- roles and contexts -------------------------------------------------------------------------

    /**
     * rdma_get_cm_event returned a CONNECT_REQUEST whose link into the graph failed: the first adoption of
     * librdmacm's context for a wildcard listener, its ibv_query_device failing. Before, the event escaped
     * unacknowledged with its passive id registered, so nothing could acknowledge it, the listener's
     * rdma_destroy_id(3) would have blocked forever (the provider refused it), and the requester got no answer.
     */
    @Test
    void aConnectRequestWhoseLinkFailsIsRejectedAcknowledgedAndLeavesTheListenerClosable() throws Exception {
        CmId listener = serverChannel.createId(CmPortSpace.TCP, "wildcard-listener");
        listener.bind(new InetSocketAddress(java.net.InetAddress.getByName("::"), serverAddress.getPort()));
        listener.listen(8);
        assertThat(listener.context()).as("bound to the wildcard: no context before the first request").isNull();
        CmId active = clientChannel.createId(CmPortSpace.TCP, "active");
        active.resolveAddress(null, serverAddress, TIMEOUT);
        expectAndAck(clientChannel, CmEventType.ADDR_RESOLVED);
        active.resolveRoute(TIMEOUT);
        expectAndAck(clientChannel, CmEventType.ROUTE_RESOLVED);
        DeviceContext ctx = Objects.requireNonNull(active.context());
        ProtectionDomain pd = ctx.allocateProtectionDomain();
        CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16));
        QueuePair qp = active.createQueuePair(pd, QueuePairSpec.rc(cq, cq, QpCapabilities.of(8, 8)));
        serverHost.faults().reset();
        serverHost.faults().failCall("ibv_query_device", 1, Errno.EIO);
        active.connect(CmConnectionParams.defaults());

        assertThatThrownBy(() -> serverChannel.awaitEvent(TIMEOUT)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.verb()).isEqualTo("ibv_query_device"));

        assertThat(server.resources()).as("no passive id left in the graph").filteredOn(r -> r instanceof CmId)
                .containsExactly(listener);
        expectAndAck(clientChannel, CmEventType.REJECTED);
        listener.close();
        assertThat(listener.isClosed()).as("a strict close: nothing holds it").isTrue();
        qp.close();
        active.close();
        client.close(List.of(pd, cq), ClosePolicy.STRICT);
    }

    @Test
    void rolesFollowTheVerbsCalledAndTheEventsDeliveredOnBothSides() {
        CmId listener = listening();
        assertThat(listener.role()).isEqualTo(CmIdRole.LISTENING);
        CmId active = clientChannel.createId(CmPortSpace.TCP);
        assertThat(active.role()).isEqualTo(CmIdRole.IDLE);
        assertThat(active.context()).as("no device before bind or resolve").isNull();
        assertThat(active.ref().device()).isEqualTo(ResourceRef.NO_DEVICE);

        active.resolveAddress(null, serverAddress, TIMEOUT);
        assertThat(active.role()).isEqualTo(CmIdRole.RESOLVING);
        expectAndAck(clientChannel, CmEventType.ADDR_RESOLVED);
        active.resolveRoute(TIMEOUT);
        expectAndAck(clientChannel, CmEventType.ROUTE_RESOLVED);
        QueuePair clientQp = queuePairOn(active);
        assertThat(clientQp.state()).as("rdma_create_qp moves it to INIT").isEqualTo(QpState.INIT);
        active.connect(CmConnectionParams.defaults().withPrivateData("hi".getBytes(StandardCharsets.US_ASCII)));
        assertThat(active.role()).isEqualTo(CmIdRole.CONNECTING);

        CmEvent request = expect(serverChannel, CmEventType.CONNECT_REQUEST);
        CmId passive = request.cmId();
        assertThat(passive.role()).isEqualTo(CmIdRole.PASSIVE);
        assertThat(passive.listener()).isSameAs(listener);
        assertThat(new String(request.privateData(), 0, 2, StandardCharsets.US_ASCII)).isEqualTo("hi");
        assertThat(server.resources()).contains(passive, request);
        QueuePair serverQp = queuePairOn(passive);
        passive.accept(CmConnectionParams.defaults());
        request.ack();
        assertThat(request.isAcknowledged()).isTrue();
        assertThat(request.type()).as("readable after the ack").isEqualTo(CmEventType.CONNECT_REQUEST);
        expectAndAck(clientChannel, CmEventType.ESTABLISHED);
        expectAndAck(serverChannel, CmEventType.ESTABLISHED);

        assertThat(active.role()).isEqualTo(CmIdRole.CONNECTED);
        assertThat(passive.role()).isEqualTo(CmIdRole.CONNECTED);
        assertThat(clientQp.state()).as("the CM moved it; the graph asks").isEqualTo(QpState.RTS);
        assertThat(passive.peerAddress()).isEqualTo(active.localAddress());

        active.disconnect();
        expectAndAck(serverChannel, CmEventType.DISCONNECTED);
        assertThat(passive.role()).isEqualTo(CmIdRole.DISCONNECTED);
        assertThat(active.role()).as("its DISCONNECTED waits for the peer's DREP").isEqualTo(CmIdRole.CONNECTED);
        assertThat(clientQp.state()).as("rdma_disconnect moved it").isEqualTo(QpState.ERR);
        passive.disconnect();
        assertThat(serverQp.state()).as("the DREP moved it").isEqualTo(QpState.ERR);
        expectAndAck(clientChannel, CmEventType.DISCONNECTED);
        assertThat(active.role()).isEqualTo(CmIdRole.DISCONNECTED);
    }

    @Test
    void librdmacmsContextIsAdoptedOncePerDeviceAndNeverClosed() {
        CmId first = clientChannel.createId(CmPortSpace.TCP);
        CmId second = clientChannel.createId(CmPortSpace.TCP);
        first.resolveAddress(null, serverAddress, TIMEOUT);
        second.resolveAddress(null, serverAddress, TIMEOUT);

        DeviceContext ctx = first.context();
        assertThat(ctx).isNotNull().isSameAs(second.context());
        assertThat(ctx.isAdopted()).isTrue();
        assertThat(ctx.details()).containsKey("adopted");
        assertThat(first.parents()).contains(clientChannel, ctx);
        assertThat(client.contexts()).containsExactly(ctx);
        assertThat(client.planClose(List.of(ctx), ClosePolicy.CASCADE).steps().getLast().verb())
                .startsWith("none");

        CloseReport report = client.close(ClosePolicy.CASCADE);

        assertThat(report.isComplete()).isTrue();
        assertThat(ctx.isClosed()).isTrue();
        assertThat(clientHost.resourceCounts("rxe1").contexts()).as("librdmacm's context stays open").isEqualTo(1);
        assertThat(clientHost.leakedObjects()).isEmpty();
    }

    @Test
    void aPassiveIdLivesOnTheAdoptedContextOfTheListenersDevice() {
        CmId listener = listening();
        Connection c = connected(listener);

        DeviceContext ctx = c.passive().context();
        assertThat(ctx).isNotNull().isSameAs(listener.context());
        assertThat(ctx.isAdopted()).isTrue();
        assertThat(ctx.dependents()).contains(listener, c.passive());
    }

    // ---- refusals in Java ---------------------------------------------------------------------------

    @Test
    void callsTheRoleRulesOutAreRefusedBeforeTheVerbNamingIdVerbAndRole() {
        CmId idle = clientChannel.createId(CmPortSpace.TCP, "idle");

        assertThatThrownBy(() -> idle.listen(4)).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.verb()).isEqualTo("rdma_listen");
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e.getMessage()).contains("'idle'", "IDLE", "bind it first");
        });
        assertThatThrownBy(() -> idle.resolveRoute(TIMEOUT)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.verb()).isEqualTo("rdma_resolve_route"));
        assertThatThrownBy(() -> idle.connect(CmConnectionParams.defaults()))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("rdma_connect");
                    assertThat(e.getMessage()).contains("ROUTE_RESOLVED");
                });
        assertThatThrownBy(() -> idle.accept(CmConnectionParams.defaults()))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.getMessage()).contains("CONNECT_REQUEST"));
        assertThatThrownBy(idle::disconnect).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.verb()).isEqualTo("rdma_disconnect"));

        CmId resolving = clientChannel.createId(CmPortSpace.TCP);
        resolving.resolveAddress(null, serverAddress, TIMEOUT);
        assertThatThrownBy(() -> resolving.connect(CmConnectionParams.defaults()))
                .as("connect before ROUTE_RESOLVED").isInstanceOf(VerbsException.class);

        assertThat(idle.role()).isEqualTo(CmIdRole.IDLE);
        assertThat(idle.localAddress()).as("nothing was bound").isNull();
        idle.close();
        assertThatThrownBy(() -> idle.bind(serverAddress)).isInstanceOf(ResourceClosedException.class);
    }

    @Test
    void badArgumentsAreRejectedInJavaWithNothingAllocated() {
        CmId id = clientChannel.createId(CmPortSpace.TCP);
        int before = client.resources().size();

        assertThatThrownBy(() -> clientChannel.createId(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> id.bind(InetSocketAddress.createUnresolved("server", 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unresolved");
        assertThatThrownBy(() -> id.resolveAddress(null, serverAddress, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
        assertThatThrownBy(() -> id.listen(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> id.connect(CmConnectionParams.defaults().withPrivateData(new byte[57])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 56");

        assertThat(client.resources()).hasSize(before);
        assertThat(id.role()).isEqualTo(CmIdRole.IDLE);
        id.bind(new InetSocketAddress(clientHost.addresses("rxe1").getFirst(), 9000));
        assertThat(id.role()).as("still usable after the refusals").isEqualTo(CmIdRole.BOUND);
    }

    @Test
    void aQueuePairWithAPdOrCqOfAnotherContextIsRefusedNamingBoth() {
        CmId active = resolved();
        DeviceContext own = client.openDevice("rxe1", "own-ctx");
        ProtectionDomain foreignPd = own.allocateProtectionDomain("foreign-pd");
        CompletionQueue foreignCq = own.createCompletionQueue(CompletionQueueSpec.of(8), "foreign-cq");
        DeviceContext cmContext = active.context();
        assertThat(cmContext).isNotNull().isNotSameAs(own);
        ProtectionDomain pd = cmContext.allocateProtectionDomain();

        assertThatThrownBy(() -> active.createQueuePair(foreignPd,
                QueuePairSpec.rc(foreignCq, foreignCq, QpCapabilities.of(4, 4))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'foreign-pd'").hasMessageContaining(cmContext.name());
        assertThatThrownBy(() -> active.createQueuePair(pd, QueuePairSpec.rc(foreignCq, foreignCq,
                QpCapabilities.of(4, 4)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'foreign-cq'");

        assertThat(active.queuePair()).isNull();
        assertThat(clientHost.resourceCounts("rxe1").qps()).isZero();
    }

    @Test
    void aQueuePairBeforeTheIdHasAContextIsRefused() {
        CmId idle = clientChannel.createId(CmPortSpace.TCP, "idle");
        DeviceContext own = client.openDevice("rxe1");
        CompletionQueue cq = own.createCompletionQueue(CompletionQueueSpec.of(8));

        assertThatThrownBy(() -> idle.createQueuePair(own.allocateProtectionDomain(),
                QueuePairSpec.rc(cq, cq, QpCapabilities.of(4, 4))))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.verb()).isEqualTo("rdma_create_qp");
                    assertThat(e.getMessage()).contains("'idle'", "no device context");
                });
        assertThat(clientHost.resourceCounts("rxe1").qps()).isZero();
    }

    // ---- release rules ------------------------------------------------------------------------------

    @Test
    void anIdWithAnUnacknowledgedEventBlocksForeverSoStrictAndAttemptRefuseAndCascadeAcknowledges() {
        CmId active = clientChannel.createId(CmPortSpace.TCP, "active");
        active.resolveAddress(null, serverAddress, TIMEOUT);
        CmEvent held = expect(clientChannel, CmEventType.ADDR_RESOLVED);

        assertThat(active.stuckReferences()).singleElement().satisfies(s -> {
            assertThat(s.consequence()).isEqualTo(Consequence.BLOCKS_FOREVER);
            assertThat(s.cause()).isEqualTo(Cause.UNACKNOWLEDGED_CM_EVENTS);
            assertThat(s.verb()).isEqualTo("rdma_destroy_id");
            assertThat(s.blocker()).isEqualTo(held.ref());
        });
        assertThatThrownBy(active::close).isInstanceOf(CloseRefusedException.class)
                .hasMessageContaining("RDMA_CM_EVENT_ADDR_RESOLVED");
        assertThatThrownBy(() -> active.close(ClosePolicy.ATTEMPT)).isInstanceOf(CloseRefusedException.class);
        assertThat(active.isOpen()).isTrue();
        assertThat(client.planClose(List.of(active), ClosePolicy.CASCADE).steps())
                .extracting(ClosePlan.Step::verb).containsExactly("rdma_ack_cm_event", "rdma_destroy_id");

        active.close(ClosePolicy.CASCADE);

        assertThat(held.isAcknowledged()).isTrue();
        assertThat(held.type()).isEqualTo(CmEventType.ADDR_RESOLVED);
        assertThat(active.isClosed()).isTrue();
    }

    @Test
    void anIdWithAQueuePairLeaksItSoStrictRefusesAndCascadeDestroysTheQueuePairFirst() {
        CmId active = resolved();
        QueuePair qp = queuePairOn(active);

        assertThat(active.stuckReferences()).singleElement().satisfies(s -> {
            assertThat(s.consequence()).isEqualTo(Consequence.LEAKS);
            assertThat(s.blocker()).isEqualTo(qp.ref());
            assertThat(s.message()).contains("rdma_destroy_qp first");
        });
        assertThatThrownBy(() -> active.close(ClosePolicy.ATTEMPT)).isInstanceOf(CloseRefusedException.class);
        assertThat(client.planClose(List.of(active), ClosePolicy.CASCADE).steps())
                .extracting(ClosePlan.Step::verb).containsExactly("rdma_destroy_qp", "rdma_destroy_id");
        assertThat(clientHost.resourceCounts("rxe1").qps()).isEqualTo(1);

        active.close(ClosePolicy.CASCADE);

        assertThat(qp.isClosed()).isTrue();
        assertThat(clientHost.resourceCounts("rxe1").qps()).isZero();
    }

    @Test
    void aChannelWithIdsOrEventsIsRefusedByTheGraphSinceItsDestroyIsVoid() {
        CmId id = clientChannel.createId(CmPortSpace.TCP, "id");
        id.resolveAddress(null, serverAddress, TIMEOUT);
        CmEvent held = expect(clientChannel, CmEventType.ADDR_RESOLVED);

        assertThat(clientChannel.stuckReferences()).extracting(StuckReference::blocker)
                .containsExactlyInAnyOrder(id.ref(), held.ref());
        assertThat(clientChannel.stuckReferences()).allSatisfy(s -> {
            assertThat(s.consequence()).isEqualTo(Consequence.LEAKS);
            assertThat(s.message()).contains("rdma_destroy_event_channel is void");
        });
        assertThatThrownBy(clientChannel::close).isInstanceOf(CloseRefusedException.class);
        assertThatThrownBy(() -> clientChannel.close(ClosePolicy.ATTEMPT)).isInstanceOf(CloseRefusedException.class);
        assertThat(id.isOpen()).isTrue();

        clientChannel.close(ClosePolicy.CASCADE);

        assertThat(held.isAcknowledged()).isTrue();
        assertThat(id.isClosed()).isTrue();
        assertThat(clientChannel.isClosed()).isTrue();
    }

    @Test
    void aConnectedIdIsRefusedUntilDisconnectedAndACascadeDisconnectsSoThePeerSeesIt() {
        CmId listener = listening();
        Connection c = connected(listener);
        QueuePair qp = c.active().queuePair();
        assertThat(qp).isNotNull();

        assertThat(causes(c.active())).contains(Cause.LIVE_CONNECTION, Cause.DEPENDENT_RESOURCE);
        assertThat(c.active().stuckReferences()).filteredOn(s -> s.cause() == Cause.LIVE_CONNECTION).singleElement()
                .satisfies(s -> assertThat(s.consequence()).isEqualTo(Consequence.ABORTS_CONNECTION));
        assertThat(causes(qp)).as("its QP's destroy would end it too").containsExactly(Cause.LIVE_CONNECTION);
        assertThatThrownBy(() -> c.active().close(ClosePolicy.STRICT)).isInstanceOf(CloseRefusedException.class);
        assertThatThrownBy(() -> qp.close(ClosePolicy.ATTEMPT)).isInstanceOf(CloseRefusedException.class);
        assertThat(client.planClose(List.of(c.active()), ClosePolicy.CASCADE).steps().getFirst().preparations())
                .anySatisfy(p -> assertThat(p).contains("rdma_disconnect"));

        c.active().close(ClosePolicy.CASCADE);

        assertThat(c.active().isClosed()).isTrue();
        assertThat(clientHost.resourceCounts("rxe1").qps()).isZero();
        expectAndAck(serverChannel, CmEventType.DISCONNECTED);
        assertThat(c.passive().role()).isEqualTo(CmIdRole.DISCONNECTED);
    }

    @Test
    void anAcceptedIdWhoseEstablishedIsNotReadYetIsALiveConnectionAndACascadeDisconnectsIt() {
        CmId listener = listening();
        CmId active = connecting();
        CmEvent request = expect(serverChannel, CmEventType.CONNECT_REQUEST);
        CmId passive = request.cmId();
        QueuePair qp = queuePairOn(passive);
        passive.accept(CmConnectionParams.defaults());
        request.ack();
        // This side's ESTABLISHED waits in the channel, unread.
        assertThat(passive.isAcceptedAwaitingEstablished()).isTrue();

        assertThat(passive.stuckReferences()).filteredOn(s -> s.cause() == Cause.LIVE_CONNECTION).singleElement()
                .satisfies(s -> {
                    assertThat(s.consequence()).isEqualTo(Consequence.ABORTS_CONNECTION);
                    assertThat(s.message()).contains("accepted a connection (its ESTABLISHED not read yet)");
                });
        assertThat(causes(qp)).as("its QP's destroy would end it too").containsExactly(Cause.LIVE_CONNECTION);
        assertThatThrownBy(() -> passive.close(ClosePolicy.STRICT)).isInstanceOf(CloseRefusedException.class);
        assertThat(server.planClose(List.of(passive), ClosePolicy.CASCADE).steps().getFirst().preparations())
                .anySatisfy(p -> assertThat(p).contains("rdma_disconnect"));
        serverChannel.disconnectTimeout(TIMEOUT);
        // The peer reads its events once this side disconnected and answers the DREQ as an application would,
        // so the close ends on its DISCONNECTED.
        Thread peer = Thread.ofPlatform().daemon().start(() -> {
            long until = System.nanoTime() + TIMEOUT.toNanos();
            while (!passive.disconnectRequested() && System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
            expectAndAck(clientChannel, CmEventType.ESTABLISHED);
            expectAndAck(clientChannel, CmEventType.DISCONNECTED);
            active.disconnect();
        });

        long start = System.nanoTime();
        passive.close(ClosePolicy.CASCADE);

        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("ended on DISCONNECTED, not the timeout")
                .isLessThan(TIMEOUT);
        assertThat(passive.disconnectRequested()).isTrue();
        assertThat(passive.isClosed()).isTrue();
        assertTimeoutPreemptively(TIMEOUT, () -> peer.join());
        assertThat(active.role()).isEqualTo(CmIdRole.DISCONNECTED);
        assertThat(listener.stuckReferences()).isEmpty();
    }

    @Test
    void aStrictCloseOfAGraphWithALiveConnectionOrAnUnansweredRequestIsRefusedTouchingNothing() {
        CmId listener = listening();
        Connection c = connected(listener);
        CmId waiting = resolved();
        waiting.connect(CmConnectionParams.defaults());
        expect(serverChannel, CmEventType.CONNECT_REQUEST).ack();

        ClosePlan clientPlan = client.planClose(ClosePolicy.STRICT);
        ClosePlan serverPlan = server.planClose(ClosePolicy.STRICT);
        int clientResources = client.resources().size();
        CloseReport report = client.close(ClosePolicy.STRICT);

        assertThat(clientPlan.isBlocked()).isTrue();
        assertThat(clientPlan.blockers()).extracting(StuckReference::cause).contains(Cause.LIVE_CONNECTION);
        assertThat(serverPlan.blockers()).extracting(StuckReference::cause)
                .contains(Cause.LIVE_CONNECTION, Cause.PENDING_CONNECTION_REQUEST);
        assertThat(report.closed()).isEmpty();
        assertThat(client.resources()).hasSize(clientResources);
        assertThat(c.active().role()).isEqualTo(CmIdRole.CONNECTED);
    }

    @Test
    void aDisconnectedIdWithItsQueuePairGoneClosesStrictly() {
        Connection c = connected(listening());
        c.active().disconnect();
        expectAndAck(serverChannel, CmEventType.DISCONNECTED);
        c.passive().disconnect();
        expectAndAck(clientChannel, CmEventType.DISCONNECTED);

        Objects.requireNonNull(c.active().queuePair()).close();
        c.active().close();

        assertThat(c.active().isClosed()).isTrue();
    }

    @Test
    void aListenerWithUnansweredRequestsIsRefusedStrictAndCascadeRejectsThemSoTheRequesterSeesRejected() {
        CmId listener = listening();
        CmId active = connecting();
        CmEvent request = expect(serverChannel, CmEventType.CONNECT_REQUEST);
        request.ack();
        CmId passive = request.cmId();

        assertThat(listener.stuckReferences()).singleElement().satisfies(s -> {
            assertThat(s.cause()).isEqualTo(Cause.PENDING_CONNECTION_REQUEST);
            assertThat(s.message()).contains(passive.ref().toString());
        });
        assertThatThrownBy(listener::close).isInstanceOf(CloseRefusedException.class)
                .hasMessageContaining(passive.name());
        assertThat(server.planClose(List.of(listener), ClosePolicy.CASCADE).steps().getFirst().preparations())
                .anySatisfy(p -> assertThat(p).contains("reject", passive.name()));

        listener.close(ClosePolicy.CASCADE);

        assertThat(passive.isClosed()).isTrue();
        CmEvent rejected = expect(clientChannel, CmEventType.REJECTED);
        assertThat(rejected.status()).as("consumer defined").isEqualTo(28);
        rejected.ack();
        assertThat(active.role()).isEqualTo(CmIdRole.REJECTED);
    }

    @Test
    void anAnsweredRequestNoLongerHoldsItsListener() {
        CmId listener = listening();
        Connection c = connected(listener);

        assertThat(listener.stuckReferences()).isEmpty();
        listener.close();

        assertThat(c.passive().isOpen()).as("an accepted connection outlives its listener").isTrue();
    }

    @Test
    void closingAGraphWithALiveConnectionDisconnectsGracefullyInDependencyOrder() {
        Connection c = connected(listening());
        List<String> closedKinds = new ArrayList<>();
        server.addListener(new VerbsListener() {
            @Override
            public void closed(VerbsResource resource) {
                closedKinds.add(resource.kind().shortName());
            }
        });

        CloseReport report = server.close(ClosePolicy.CASCADE);

        assertThat(report.isComplete()).as("%s", report).isTrue();
        assertThat(server.resources()).isEmpty();
        assertThat(closedKinds.indexOf("qp")).isLessThan(closedKinds.lastIndexOf("cm-id"));
        assertThat(closedKinds.getLast()).isEqualTo("ctx");
        expectAndAck(clientChannel, CmEventType.DISCONNECTED);
        assertThat(c.active().role()).isEqualTo(CmIdRole.DISCONNECTED);
        assertThat(serverHost.resourceCounts("rxe0").objects()).isZero();
    }

    @Test
    void aCascadeDisconnectWhileAnotherThreadReadsTheChannelEndsWithinABound() {
        Connection c = connected(listening());
        clientChannel.disconnectTimeout(Duration.ofMillis(200));
        // Another thread reads the channel all along: the close competes with it for the DISCONNECTED, never hangs.
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                while (true) {
                    clientChannel.awaitEvent(Duration.ofMillis(50)).ifPresent(e -> { });
                }
            } catch (ResourceClosedException expected) {
                // The graph's close at the end of the test.
            }
        });

        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> c.active().close(ClosePolicy.CASCADE));

        assertThat(c.active().isClosed()).isTrue();
        clientChannel.close(ClosePolicy.CASCADE);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> reader.join());
    }

    @Test
    void closingTheChannelWhileEventsArriveNeitherHangsNorLeavesAnything() throws Exception {
        CmId listener = listening();
        AtomicInteger requests = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch firstRequest = new CountDownLatch(1);
        Thread loop = Thread.ofPlatform().start(() -> {
            try {
                while (true) {
                    serverChannel.awaitEvent(Duration.ofMillis(100)).ifPresent(e -> {
                        if (e.type() == CmEventType.CONNECT_REQUEST) {
                            requests.incrementAndGet();
                            e.cmId().reject(new byte[0]);
                            e.ack();
                            e.cmId().close();
                            firstRequest.countDown();
                        } else {
                            e.ack();
                        }
                    });
                }
            } catch (ResourceClosedException closed) {
                // The close below.
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        Thread connector = Thread.ofPlatform().start(() -> {
            try {
                while (clientChannel.isOpen()) {
                    CmId active = resolved();
                    active.connect(CmConnectionParams.defaults());
                    expectAndAck(clientChannel, CmEventType.REJECTED);
                    active.close();
                }
            } catch (RuntimeException | AssertionError stopped) {
                // The client graph closes at the end of the test.
            }
        });
        firstRequest.await();

        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> serverChannel.close(ClosePolicy.CASCADE));
        loop.join(5000);

        assertThat(loop.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(listener.isClosed()).isTrue();
        assertThat(server.resources()).allSatisfy(r -> assertThat(r.kind()).isNotIn(ResourceKind.CM_ID,
                ResourceKind.CM_EVENT, ResourceKind.CM_EVENT_CHANNEL));
        assertThat(requests.get()).isPositive();
        client.close();
        connector.join(5000);
        assertThat(connector.isAlive()).isFalse();
    }
}
