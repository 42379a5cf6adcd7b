package io.rdmaverbs.verbs.provider.simulated;

import static io.rdmaverbs.verbs.provider.simulated.VerbsRig.assertVerbFails;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.attr.QpCapabilities;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.CmChannelHandle;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.provider.CmEventHandle;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.provider.CmIdHandle;
import io.rdmaverbs.verbs.attr.CmPortSpace;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.ContextHandle;
import io.rdmaverbs.verbs.provider.CqHandle;
import io.rdmaverbs.verbs.provider.MrHandle;
import io.rdmaverbs.verbs.provider.PdHandle;
import io.rdmaverbs.verbs.provider.QpHandle;
import io.rdmaverbs.verbs.provider.QpInitSpec;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The simulated connection manager against librdmacm's behaviour on rxe: two hosts (two providers on
 * one {@link SimulatedNetwork}) connect, exchange data, reject and disconnect with the event sequences,
 * statuses and private-data sizes of {@code rdma_cm(7)}.
 */
class ConnectionManagerTest {

    private static final int PORT = 7471;
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final SimulatedNetwork network = SimulatedNetwork.create();
    private final SimulatedProvider serverHost = SimulatedProvider.on(network, DeviceProfile.rxe("rxe0"));
    private final SimulatedProvider clientHost = SimulatedProvider.on(network, DeviceProfile.rxe("rxe1"));
    private final ConnectionVerbs server = serverHost.connectionVerbs();
    private final ConnectionVerbs client = clientHost.connectionVerbs();
    private final VerbsRig serverRig = new VerbsRig(serverHost);
    private final VerbsRig clientRig = new VerbsRig(clientHost);
    private final InetSocketAddress serverAddress = new InetSocketAddress(serverHost.addresses("rxe0").getFirst(), PORT);

    @AfterEach
    void close() {
        serverRig.close();
        clientRig.close();
    }

    /** What an application makes on a CM id's context: PD, CQ, an RC QP through rdma_create_qp, a buffer. */
    private record Endpoint(PdHandle pd, CqHandle cq, QpHandle qp, MemorySegment buffer, MrHandle mr) {
    }

    private static Endpoint endpoint(VerbsRig rig, ConnectionVerbs cm, CmIdHandle id) {
        ContextHandle ctx = cm.context(id);
        assertThat(ctx).isNotNull();
        PdHandle pd = rig.provider.domainVerbs().allocPd(ctx);
        CqHandle cq = rig.provider.completionVerbs().createCq(ctx, 16, null, 0);
        QpHandle qp = cm.createQp(id, new QpInitSpec(QpType.RC, pd, null, cq, cq, null, QpCapabilities.of(8, 8),
                false));
        MemorySegment buffer = rig.buffer(256);
        return new Endpoint(pd, cq, qp, buffer, rig.register(pd, buffer));
    }

    private static CmEventHandle expect(ConnectionVerbs cm, CmChannelHandle channel, CmEventType type) {
        CmEventHandle event = cm.getEvent(channel, 2000);
        assertThat(event).as("an event on %s", channel.describe()).isNotNull();
        assertThat(event.type()).as("%s", event.describe()).isEqualTo(type);
        return event;
    }

    private static void expectAndAck(ConnectionVerbs cm, CmChannelHandle channel, CmEventType type) {
        cm.ackEvent(expect(cm, channel, type));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(byte[] data, int length) {
        return new String(data, 0, length, StandardCharsets.US_ASCII);
    }

    private CmIdHandle listening(CmChannelHandle channel) {
        CmIdHandle listener = server.createId(channel, CmPortSpace.TCP);
        server.bindAddr(listener, serverAddress);
        server.listen(listener, 8);
        return listener;
    }

    /** rdma_resolve_addr and rdma_resolve_route, each event acknowledged, as rping's client does. */
    /**
     * Connects the client's {@code active} id to the server's listener on {@code serverChannel} and
     * accepts the request; the client reads the REP (its RTU goes out as it does), then the server its
     * ESTABLISHED: both sides have acknowledged every event.
     */
    private CmIdHandle accepted(CmChannelHandle serverChannel, CmChannelHandle clientChannel, CmIdHandle active) {
        CmIdHandle passive = answered(serverChannel, active);
        expectAndAck(client, clientChannel, CmEventType.ESTABLISHED);
        expectAndAck(server, serverChannel, CmEventType.ESTABLISHED);
        return passive;
    }

    /** Connects {@code active} and accepts its request, its CONNECT_REQUEST acknowledged: no REP read yet. */
    private CmIdHandle answered(CmChannelHandle serverChannel, CmIdHandle active) {
        client.connect(active, CmConnectionParams.defaults());
        CmEventHandle request = expect(server, serverChannel, CmEventType.CONNECT_REQUEST);
        server.accept(request.id(), CmConnectionParams.defaults());
        server.ackEvent(request);
        return request.id();
    }

    private CmIdHandle resolved(CmChannelHandle channel, InetSocketAddress destination) {
        CmIdHandle id = client.createId(channel, CmPortSpace.TCP);
        client.resolveAddr(id, null, destination, TIMEOUT);
        expectAndAck(client, channel, CmEventType.ADDR_RESOLVED);
        client.resolveRoute(id, TIMEOUT);
        expectAndAck(client, channel, CmEventType.ROUTE_RESOLVED);
        return id;
    }

    @Test
    void aDeviceHasTheLinkLocalAddressOfItsGidDerivedFromItsGuid() {
        InetAddress address = serverHost.addresses("rxe0").getFirst();

        assertThat(address).isInstanceOf(Inet6Address.class);
        assertThat(address.isLinkLocalAddress()).isTrue();
        long interfaceId = java.nio.ByteBuffer.wrap(address.getAddress()).getLong(8);
        assertThat(interfaceId).isEqualTo(serverHost.profiles().getFirst().port(1).gid(0).interfaceId());
    }

    @Test
    void connectAcceptExchangeAndDisconnectAcrossTwoHostsGiveLibrdmacmsEventSequence() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        CmIdHandle listener = listening(serverChannel);
        CmIdHandle active = resolved(clientChannel, serverAddress);
        Endpoint c = endpoint(clientRig, client, active);
        assertThat(client.context(active).ownedByConnectionManager()).isTrue();
        assertThat(clientHost.queuePairVerbs().queryQp(c.qp()).state()).isEqualTo(QpState.INIT);

        client.connect(active, CmConnectionParams.defaults().withPrivateData(bytes("hello")));

        CmEventHandle request = expect(server, serverChannel, CmEventType.CONNECT_REQUEST);
        assertThat(request.listenId()).isSameAs(listener);
        CmIdHandle passive = request.id();
        assertThat(passive).isNotSameAs(listener);
        assertThat(request.privateData()).hasSize(CmConnectionParams.MAX_CONNECT_PRIVATE_DATA);
        assertThat(text(request.privateData(), 5)).isEqualTo("hello");
        assertThat(server.peerAddress(passive)).isEqualTo(client.localAddress(active));
        assertThat(server.localAddress(passive)).isEqualTo(serverAddress);
        Endpoint s = endpoint(serverRig, server, passive);
        serverRig.receive(s.qp(), 42, s.buffer(), 256, s.mr());
        server.accept(passive, CmConnectionParams.defaults().withPrivateData(bytes("welcome")));
        server.ackEvent(request);

        CmEventHandle established = expect(client, clientChannel, CmEventType.ESTABLISHED);
        assertThat(established.privateData()).hasSize(CmConnectionParams.MAX_ACCEPT_PRIVATE_DATA);
        assertThat(text(established.privateData(), 7)).isEqualTo("welcome");
        client.ackEvent(established);
        expectAndAck(server, serverChannel, CmEventType.ESTABLISHED);
        assertThat(clientHost.queuePairVerbs().queryQp(c.qp()).state()).isEqualTo(QpState.RTS);
        assertThat(serverHost.queuePairVerbs().queryQp(s.qp()).state()).isEqualTo(QpState.RTS);

        MemorySegment.copy(bytes("ping"), 0, c.buffer(), java.lang.foreign.ValueLayout.JAVA_BYTE, 0, 4);
        clientRig.post(c.qp(), SendOpcode.SEND, 7, c.buffer(), 4, c.mr(), SendFlag.SIGNALED);
        assertThat(clientRig.poll(c.cq())).singleElement().satisfies(wc -> {
            assertThat(wc.wrId()).isEqualTo(7);
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        });
        assertThat(serverRig.poll(s.cq())).singleElement().satisfies(wc -> {
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(wc.byteLength()).isEqualTo(4);
        });
        assertThat(VerbsRig.read(s.buffer(), 0, 4)).isEqualTo("ping");

        client.disconnect(active);
        expectAndAck(server, serverChannel, CmEventType.DISCONNECTED);
        assertThat(clientHost.queuePairVerbs().queryQp(c.qp()).state()).isEqualTo(QpState.ERR);
        assertThat(client.getEvent(clientChannel, 50)).as("the DREQ's sender waits for the DREP").isNull();
        server.disconnect(passive);
        expectAndAck(client, clientChannel, CmEventType.DISCONNECTED);
        assertThat(server.getEvent(serverChannel, 50)).as("the DREP makes no further event").isNull();
        assertThat(serverHost.queuePairVerbs().queryQp(s.qp()).state()).isEqualTo(QpState.ERR);
        client.disconnect(active); // the kernel ignores the IB CM's EINVAL for a second DREQ
        assertThat(client.getEvent(clientChannel, 50)).as("a second disconnect makes no event").isNull();

        client.destroyQp(active);
        server.destroyQp(passive);
        client.destroyId(active);
        server.destroyId(passive);
        server.destroyId(listener);
        client.destroyEventChannel(clientChannel);
        server.destroyEventChannel(serverChannel);
        assertThatThrownBy(() -> client.context(active)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void rejectGivesTheActiveSideRejectedWithConsumerDefinedReasonAndThePrivateData() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        CmIdHandle active = resolved(clientChannel, serverAddress);
        client.connect(active, CmConnectionParams.defaults());
        CmEventHandle request = expect(server, serverChannel, CmEventType.CONNECT_REQUEST);

        server.reject(request.id(), bytes("busy"));
        server.ackEvent(request);

        CmEventHandle rejected = expect(client, clientChannel, CmEventType.REJECTED);
        assertThat(rejected.status()).isEqualTo(SimConnectionVerbs.REJECT_CONSUMER_DEFINED);
        assertThat(rejected.privateData()).hasSize(CmConnectionParams.MAX_REJECT_PRIVATE_DATA);
        assertThat(text(rejected.privateData(), 4)).isEqualTo("busy");
        assertThat(Arrays.copyOfRange(rejected.privateData(), 4, 148)).containsOnly(0);
        client.ackEvent(rejected);
        server.destroyId(request.id());
        client.destroyId(active);
    }

    @Test
    void connectingToAPortNobodyListensOnIsRejectedWithInvalidServiceId() {
        CmChannelHandle clientChannel = client.createEventChannel();
        CmIdHandle active = resolved(clientChannel, serverAddress);

        client.connect(active, CmConnectionParams.defaults());

        CmEventHandle rejected = expect(client, clientChannel, CmEventType.REJECTED);
        assertThat(rejected.status()).isEqualTo(SimConnectionVerbs.REJECT_INVALID_SERVICE_ID);
        client.ackEvent(rejected);
    }

    @Test
    void resolvingAnAddressNoDeviceHasGivesAddrErrorWithEtimedoutOnlyAfterTheTimeout() throws Exception {
        CmChannelHandle channel = client.createEventChannel();
        CmIdHandle id = client.createId(channel, CmPortSpace.TCP);
        InetSocketAddress nobody = new InetSocketAddress(InetAddress.getByName("fe80::dead:beef"), PORT);
        long start = System.nanoTime();

        client.resolveAddr(id, null, nobody, Duration.ofMillis(300));

        assertThat(client.getEvent(channel, 100)).as("nothing before the timeout").isNull();
        CmEventHandle error = expect(client, channel, CmEventType.ADDR_ERROR);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(error.status()).isEqualTo(-Errno.ETIMEDOUT.number());
        client.ackEvent(error);
    }

    @Test
    void onANoArpNetdevAnAddressNobodyHasResolvesAndTheUnansweredRequestIsUnreachableAfterTheCmRetries() throws Exception {
        clientHost.setArp("rxe1", false);
        clientHost.setCmRetryTimeout(Duration.ofMillis(400));
        CmChannelHandle channel = client.createEventChannel();
        InetSocketAddress nobody = new InetSocketAddress(InetAddress.getByName("fe80::dead:beef"), PORT);
        CmIdHandle active = resolved(channel, nobody);
        ContextHandle ctx = client.context(active);
        PdHandle pd = clientHost.domainVerbs().allocPd(ctx);
        CqHandle cq = clientHost.completionVerbs().createCq(ctx, 8, null, 0);
        client.createQp(active, new QpInitSpec(QpType.RC, pd, null, cq, cq, null, QpCapabilities.of(8, 8), false));
        long start = System.nanoTime();

        client.connect(active, CmConnectionParams.defaults());

        assertThat(client.getEvent(channel, 100)).as("the REQ is resent meanwhile").isNull();
        CmEventHandle unreachable = expect(client, channel, CmEventType.UNREACHABLE);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        assertThat(unreachable.status()).isEqualTo(-Errno.ETIMEDOUT.number());
        client.ackEvent(unreachable);
        client.destroyQp(active);
        clientHost.completionVerbs().destroyCq(cq);
        clientHost.domainVerbs().deallocPd(pd);
        client.destroyId(active);
        assertThat(clientHost.liveCmIds()).isZero();
    }

    @Test
    void theDisconnectRequestsSenderGetsDisconnectedWhenThePeerNeverAnswersOnlyAfterTheCmRetries() {
        clientHost.setCmRetryTimeout(Duration.ofMillis(300));
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        CmIdHandle active = resolved(clientChannel, serverAddress);
        accepted(serverChannel, clientChannel, active);
        long start = System.nanoTime();

        client.disconnect(active);

        expectAndAck(server, serverChannel, CmEventType.DISCONNECTED);
        assertThat(client.getEvent(clientChannel, 100)).as("the DREQ waits for a DREP").isNull();
        expectAndAck(client, clientChannel, CmEventType.DISCONNECTED);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void destroyingTheIdThatReceivedTheDisconnectRequestAnswersItAtOnce() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        CmIdHandle active = resolved(clientChannel, serverAddress);
        CmIdHandle passive = accepted(serverChannel, clientChannel, active);
        client.disconnect(active);
        expectAndAck(server, serverChannel, CmEventType.DISCONNECTED);

        server.destroyId(passive);

        expectAndAck(client, clientChannel, CmEventType.DISCONNECTED);
    }

    @Test
    void connectingToAHostWhosePortIsDownIsUnreachableAfterTheCmRetries() {
        clientHost.setCmRetryTimeout(Duration.ofMillis(200));
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        CmIdHandle active = client.createId(clientChannel, CmPortSpace.TCP);
        client.resolveAddr(active, null, serverAddress, TIMEOUT);
        expectAndAck(client, clientChannel, CmEventType.ADDR_RESOLVED);
        client.resolveRoute(active, TIMEOUT);
        expectAndAck(client, clientChannel, CmEventType.ROUTE_RESOLVED);
        serverHost.setPortState("rxe0", 1, PortState.DOWN);

        client.connect(active, CmConnectionParams.defaults());

        assertThat(client.getEvent(clientChannel, 50)).isNull();
        CmEventHandle unreachable = expect(client, clientChannel, CmEventType.UNREACHABLE);
        assertThat(unreachable.status()).isEqualTo(-Errno.ETIMEDOUT.number());
        assertThat(server.getEvent(serverChannel, 0)).as("no request reached the listener").isNull();
    }

    @Test
    void bindingAPortAnotherIdHoldsFailsWithEaddrinuseAndTheWildcardConflictsWithEveryAddress() throws Exception {
        CmChannelHandle channel = server.createEventChannel();
        CmIdHandle first = server.createId(channel, CmPortSpace.TCP);
        server.bindAddr(first, serverAddress);
        CmIdHandle second = server.createId(channel, CmPortSpace.TCP);
        CmIdHandle wildcard = server.createId(channel, CmPortSpace.TCP);
        CmIdHandle udp = server.createId(channel, CmPortSpace.UDP);

        assertVerbFails(() -> server.bindAddr(second, serverAddress), "rdma_bind_addr", Errno.EADDRINUSE);
        assertVerbFails(() -> server.bindAddr(wildcard, new InetSocketAddress(InetAddress.getByName("::"), PORT)),
                "rdma_bind_addr", Errno.EADDRINUSE);
        server.bindAddr(udp, serverAddress);

        server.destroyId(first);
        server.bindAddr(second, serverAddress);
        assertThat(server.localAddress(second)).isEqualTo(serverAddress);
    }

    @Test
    void bindingAnAddressOfAnotherHostFailsWithEaddrnotavail() {
        CmChannelHandle channel = client.createEventChannel();
        CmIdHandle id = client.createId(channel, CmPortSpace.TCP);

        assertVerbFails(() -> client.bindAddr(id, serverAddress), "rdma_bind_addr", Errno.EADDRNOTAVAIL);
    }

    @Test
    void destroyingAnIdWithAnUnacknowledgedEventIsRefusedNamingTheEventInsteadOfHanging() {
        CmChannelHandle channel = client.createEventChannel();
        CmIdHandle id = client.createId(channel, CmPortSpace.TCP);
        client.resolveAddr(id, null, serverAddress, TIMEOUT);
        CmEventHandle resolved = expect(client, channel, CmEventType.ADDR_RESOLVED);

        assertThatThrownBy(() -> client.destroyId(id)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("RDMA_CM_EVENT_ADDR_RESOLVED").hasMessageContaining("block forever");

        client.ackEvent(resolved);
        client.destroyId(id);
        assertThatThrownBy(() -> client.ackEvent(resolved)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aConnectRequestIdIsTheApplicationsAndOutlivesItsListener() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        CmIdHandle listener = listening(serverChannel);
        CmIdHandle active = resolved(clientChannel, serverAddress);
        client.connect(active, CmConnectionParams.defaults());
        CmEventHandle request = expect(server, serverChannel, CmEventType.CONNECT_REQUEST);

        assertThatThrownBy(() -> server.destroyId(listener)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("RDMA_CM_EVENT_CONNECT_REQUEST");
        server.ackEvent(request);
        server.destroyId(listener);

        server.reject(request.id(), new byte[0]);
        assertThat(expect(client, clientChannel, CmEventType.REJECTED).status())
                .isEqualTo(SimConnectionVerbs.REJECT_CONSUMER_DEFINED);
        server.destroyId(request.id());
    }

    @Test
    void destroyingTheEventChannelOfAConnectedIdDisconnectsThePeerAndLeavesTheIdUnusable() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        CmIdHandle active = resolved(clientChannel, serverAddress);
        accepted(serverChannel, clientChannel, active);

        client.destroyEventChannel(clientChannel);

        expectAndAck(server, serverChannel, CmEventType.DISCONNECTED);
        assertThatThrownBy(() -> client.disconnect(active)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("with its event channel");
    }

    @Test
    void privateDataAboveWhatTheIbCmMessageCarriesIsRefusedWithEinval() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        CmIdHandle active = resolved(clientChannel, serverAddress);

        assertVerbFails(() -> client.connect(active, CmConnectionParams.defaults().withPrivateData(new byte[57])),
                "rdma_connect", Errno.EINVAL);
        client.connect(active, CmConnectionParams.defaults().withPrivateData(new byte[56]));
        CmEventHandle request = expect(server, serverChannel, CmEventType.CONNECT_REQUEST);
        assertVerbFails(() -> server.accept(request.id(), CmConnectionParams.defaults().withPrivateData(
                new byte[197])), "rdma_accept", Errno.EINVAL);
        assertVerbFails(() -> server.reject(request.id(), new byte[149]), "rdma_reject", Errno.EINVAL);
        assertThatThrownBy(() -> CmConnectionParams.defaults().withPrivateData(new byte[256]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uint8_t");
    }

    @Test
    void badArgumentsAreRefusedInJavaBeforeTheCm() {
        CmChannelHandle clientChannel = client.createEventChannel();
        CmIdHandle id = client.createId(clientChannel, CmPortSpace.TCP);
        CmChannelHandle serverChannel = server.createEventChannel();

        assertThatThrownBy(() -> client.createId(serverChannel, CmPortSpace.TCP))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not created by this");
        assertThatThrownBy(() -> client.resolveAddr(id, null, serverAddress, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.resolveAddr(id, null, InetSocketAddress.createUnresolved("server", PORT),
                TIMEOUT)).isInstanceOf(IllegalArgumentException.class);
        assertVerbFails(() -> client.connect(id, CmConnectionParams.defaults()), "rdma_connect", Errno.EINVAL);
        PdHandle pd = clientHost.domainVerbs().allocPd(clientRig.open("rxe1"));
        assertVerbFails(() -> client.createQp(id, new QpInitSpec(QpType.RC, pd, null, null, null, null,
                QpCapabilities.of(1, 1), false)), "rdma_create_qp", Errno.EINVAL);

        client.resolveAddr(id, null, serverAddress, TIMEOUT);
        expectAndAck(client, clientChannel, CmEventType.ADDR_RESOLVED);
        CqHandle cq = clientHost.completionVerbs().createCq(clientRig.open("rxe1"), 4, null, 0);
        assertThat(catching(() -> client.createQp(id, new QpInitSpec(QpType.RC, pd, null, cq, cq, null,
                QpCapabilities.of(1, 1), false)))).isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.getMessage()).contains("id->verbs");
                });
        assertThatThrownBy(() -> clientHost.deviceVerbs().closeDevice(client.context(id)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connection manager");
        client.destroyId(id);
        assertThatThrownBy(() -> client.bindAddr(id, serverAddress)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theFaultPlanCountsAndFailsCmVerbsLeavingTheIdAsItWas() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        CmIdHandle active = resolved(clientChannel, serverAddress);
        clientHost.faults().failCall("rdma_connect", 1, Errno.ENOMEM);

        assertVerbFails(() -> client.connect(active, CmConnectionParams.defaults()), "rdma_connect", Errno.ENOMEM);
        client.connect(active, CmConnectionParams.defaults());

        expect(server, serverChannel, CmEventType.CONNECT_REQUEST);
        assertThat(clientHost.faults().callsByVerb()).containsEntry("rdma_connect", 2L)
                .containsEntry("rdma_resolve_addr", 1L).containsEntry("rdma_get_cm_event", 2L);
    }

    @Test
    void aQueuePairRdmaCreateQpCannotMoveToInitIsDestroyedAgainAsLibrdmacmDoes() {
        CmChannelHandle channel = client.createEventChannel();
        CmIdHandle active = resolved(channel, serverAddress);
        ContextHandle ctx = client.context(active);
        PdHandle pd = clientHost.domainVerbs().allocPd(ctx);
        CqHandle cq = clientHost.completionVerbs().createCq(ctx, 8, null, 0);
        clientHost.faults().failCall("ibv_modify_qp", 1, Errno.EINVAL);

        assertVerbFails(() -> client.createQp(active, new QpInitSpec(QpType.RC, pd, null, cq, cq, null,
                QpCapabilities.of(8, 8), false)), "ibv_modify_qp", Errno.EINVAL);

        assertThat(client.qp(active)).isNull();
        assertThat(clientHost.resourceCounts("rxe1").qps()).as("no QP left behind").isZero();
    }

    @Test
    void aWaiterWithoutTimeoutGetsTheRequestOfAnotherHostAndAWakeEndsTheNextWaitOnly() throws Exception {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        java.util.concurrent.CompletableFuture<CmEventHandle> waiter = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> server.getEvent(serverChannel, -1));
        CmIdHandle active = resolved(clientChannel, serverAddress);

        client.connect(active, CmConnectionParams.defaults());

        assertThat(waiter.get(2, java.util.concurrent.TimeUnit.SECONDS).type()).isEqualTo(CmEventType.CONNECT_REQUEST);
        server.wakeEventWaiters(serverChannel);
        server.wakeEventWaiters(serverChannel);
        assertThat(server.getEvent(serverChannel, -1)).as("the kept wake ends this wait").isNull();
        long start = System.nanoTime();
        assertThat(server.getEvent(serverChannel, 100)).isNull();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("two wakes count once: this wait times out")
                .isGreaterThanOrEqualTo(Duration.ofMillis(100));
    }

    @Test
    void awaitEventReadySeesADueEventWithoutTakingItAndAReadThatDoesNotWaitLeavesAWakeToTheWaiters() {
        CmChannelHandle channel = client.createEventChannel();
        CmIdHandle id = client.createId(channel, CmPortSpace.TCP);
        assertThat(client.awaitEventReady(channel, 0)).as("nothing queued").isFalse();

        client.resolveAddr(id, null, serverAddress, TIMEOUT);

        assertThat(client.awaitEventReady(channel, 1000)).isTrue();
        assertThat(client.awaitEventReady(channel, 0)).as("the event is still queued").isTrue();
        CmEventHandle resolved = client.getEvent(channel, 0);
        assertThat(resolved).isNotNull();
        assertThat(resolved.type()).isEqualTo(CmEventType.ADDR_RESOLVED);
        client.ackEvent(resolved);
        assertThat(client.getEvent(channel, 0)).as("nothing left").isNull();
        client.wakeEventWaiters(channel);
        assertThat(client.getEvent(channel, 0)).isNull();
        long start = System.nanoTime();
        assertThat(client.awaitEventReady(channel, 30_000)).as("the wake was left pending: it ends this wait").isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        start = System.nanoTime();
        assertThat(client.awaitEventReady(channel, 100)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the wait consumed the wake: this one times out")
                .isGreaterThanOrEqualTo(Duration.ofMillis(100));
        client.destroyId(id);
        client.destroyEventChannel(channel);
        assertThatThrownBy(() -> client.awaitEventReady(channel, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anInterruptedWaitForAReadyEventEndsAtOnceKeepingTheInterrupt() {
        CmChannelHandle channel = client.createEventChannel();
        Thread.currentThread().interrupt();
        try {
            long start = System.nanoTime();
            assertThat(client.awaitEventReady(channel, 30_000)).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        client.destroyEventChannel(channel);
    }

    @Test
    void aLoopbackConnectionOnOneDeviceCarriesDataAsRpingOnRxe0Does() {
        CmChannelHandle channel = server.createEventChannel();
        CmIdHandle listener = listening(channel);
        CmIdHandle active = server.createId(channel, CmPortSpace.TCP);
        server.resolveAddr(active, null, serverAddress, TIMEOUT);
        expectAndAck(server, channel, CmEventType.ADDR_RESOLVED);
        server.resolveRoute(active, TIMEOUT);
        expectAndAck(server, channel, CmEventType.ROUTE_RESOLVED);
        Endpoint a = endpoint(serverRig, server, active);
        assertThat(server.context(active)).as("librdmacm opens one context per device").isSameAs(
                server.context(listener));

        server.connect(active, CmConnectionParams.defaults());
        CmEventHandle request = expect(server, channel, CmEventType.CONNECT_REQUEST);
        Endpoint p = endpoint(serverRig, server, request.id());
        serverRig.receive(p.qp(), 1, p.buffer(), 256, p.mr());
        server.accept(request.id(), CmConnectionParams.defaults());
        server.ackEvent(request);
        expectAndAck(server, channel, CmEventType.ESTABLISHED);
        expectAndAck(server, channel, CmEventType.ESTABLISHED);
        MemorySegment.copy(bytes("loop"), 0, a.buffer(), java.lang.foreign.ValueLayout.JAVA_BYTE, 0, 4);
        serverRig.post(a.qp(), SendOpcode.SEND, 2, a.buffer(), 4, a.mr(), SendFlag.SIGNALED);

        assertThat(serverRig.poll(p.cq())).singleElement().satisfies(wc -> assertThat(wc.status())
                .isEqualTo(WcStatus.SUCCESS));
        assertThat(VerbsRig.read(p.buffer(), 0, 4)).isEqualTo("loop");
    }

    /**
     * As librdmacm and the kernel: the requester's RTU goes out only as its rdma_get_cm_event reads the REP,
     * so the answering id's ESTABLISHED comes after that read; an rdma_disconnect before it, not established,
     * sends nothing (the requester gets no DISCONNECTED), and once the RTU came, one sends the DREQ.
     */
    @Test
    void theAnsweringIdIsEstablishedOnlyOnceTheRequesterReadsTheRepAndADisconnectBeforeSendsNothing() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        CmIdHandle passive = answered(serverChannel, resolved(clientChannel, serverAddress));
        assertThat(server.getEvent(serverChannel, 0)).as("no ESTABLISHED before the requester reads the REP")
                .isNull();

        server.disconnect(passive);

        expectAndAck(client, clientChannel, CmEventType.ESTABLISHED);
        expectAndAck(server, serverChannel, CmEventType.ESTABLISHED);
        assertThat(client.getEvent(clientChannel, 0)).as("the disconnect before the RTU sent no DREQ").isNull();
        server.disconnect(passive);
        expectAndAck(client, clientChannel, CmEventType.DISCONNECTED);
    }

    @Test
    void destroyingAConnectedIdDisconnectsThePeerAndAnUnansweredRequestsIdRejectsTheRequester() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        CmIdHandle first = resolved(clientChannel, serverAddress);
        accepted(serverChannel, clientChannel, first);

        client.destroyId(first);
        expectAndAck(server, serverChannel, CmEventType.DISCONNECTED);

        CmIdHandle second = resolved(clientChannel, serverAddress);
        client.connect(second, CmConnectionParams.defaults());
        CmEventHandle unanswered = expect(server, serverChannel, CmEventType.CONNECT_REQUEST);
        server.ackEvent(unanswered);
        server.destroyId(unanswered.id());
        CmEventHandle rejected = expect(client, clientChannel, CmEventType.REJECTED);
        assertThat(rejected.id()).isSameAs(second);
        assertThat(rejected.status()).isEqualTo(SimConnectionVerbs.REJECT_CONSUMER_DEFINED);
    }

    @Test
    void destroyingAListenersChannelWithARequestNotYetReturnedRejectsTheRequesterOnce() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        listening(serverChannel);
        CmIdHandle active = resolved(clientChannel, serverAddress);
        client.connect(active, CmConnectionParams.defaults());

        server.destroyEventChannel(serverChannel);

        assertThat(expect(client, clientChannel, CmEventType.REJECTED).status())
                .isEqualTo(SimConnectionVerbs.REJECT_CONSUMER_DEFINED);
        assertThat(client.getEvent(clientChannel, 50)).isNull();
    }

    @Test
    void aRequestBeyondTheListenersBacklogOfUnreturnedRequestsIsRejected() {
        CmChannelHandle serverChannel = server.createEventChannel();
        CmChannelHandle clientChannel = client.createEventChannel();
        CmIdHandle listener = server.createId(serverChannel, CmPortSpace.TCP);
        server.bindAddr(listener, serverAddress);
        server.listen(listener, 1);
        CmIdHandle first = resolved(clientChannel, serverAddress);
        CmIdHandle second = resolved(clientChannel, serverAddress);

        client.connect(first, CmConnectionParams.defaults());
        client.connect(second, CmConnectionParams.defaults());

        CmEventHandle rejected = expect(client, clientChannel, CmEventType.REJECTED);
        assertThat(rejected.id()).isSameAs(second);
        assertThat(rejected.status()).isEqualTo(SimConnectionVerbs.REJECT_CONSUMER_DEFINED);
        client.ackEvent(rejected);
        server.ackEvent(expect(server, serverChannel, CmEventType.CONNECT_REQUEST));
        CmIdHandle third = resolved(clientChannel, serverAddress);
        client.connect(third, CmConnectionParams.defaults());
        assertThat(expect(server, serverChannel, CmEventType.CONNECT_REQUEST).listenId())
                .as("returning the request freed the backlog").isSameAs(listener);
    }

    @Test
    void twoProvidersWithDevicesOfOneGuidCannotShareANetwork() {
        assertThatThrownBy(() -> SimulatedProvider.on(network, DeviceProfile.rxe("rxe0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GUID");
    }

    private static Throwable catching(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }
}
