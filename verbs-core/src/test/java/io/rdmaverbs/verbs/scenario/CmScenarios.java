package io.rdmaverbs.verbs.scenario;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.CmEvent;
import io.rdmaverbs.verbs.CmEventChannel;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.CmIdRole;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.QueuePairSpec;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.StuckReference.Cause;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.CmConnectionParams;
import io.rdmaverbs.verbs.attr.CmEventType;
import io.rdmaverbs.verbs.attr.CmPortSpace;

import static io.rdmaverbs.verbs.scenario.Fixtures.CAPS;
import static io.rdmaverbs.verbs.scenario.Fixtures.LOCAL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connection management through the resource graph ({@code rdma_cm(7)}): rdma_cm loopback on one device,
 * a listening id and a connecting id on two event channels of one graph, as {@code rping} does on rxe0.
 * Each event is recorded with its type, status and private-data length, so that the differential check
 * compares the kernel's sequence with the simulator's step by step; each release rule of a CM resource
 * is shown refused under {@link ClosePolicy#STRICT} and carried out under {@link ClosePolicy#CASCADE}.
 */
final class CmScenarios {

    /** Each resolution's timeout, and how long a scenario waits for an event that must come. */
    static final Duration RESOLVE = Duration.ofSeconds(2);
    static final Duration EVENT_WAIT = Duration.ofSeconds(20);
    /** How long a scenario watches for an event that must not come (yet). */
    static final Duration QUIET = Duration.ofMillis(300);
    static final byte[] HELLO = ascii("hello from the client");
    static final byte[] WELCOME = ascii("welcome from the server");
    static final byte[] GO_AWAY = ascii("go away");

    private CmScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new Scenario("rdma_cm: connect, accept, a checksummed message each way and disconnect give the "
                        + "kernel's event sequence", CmScenarios::connectAcceptExchangeDisconnect),
                new Scenario("rdma_cm: a reject reaches the requester as REJECTED, status 28, with its private data",
                        CmScenarios::rejectWithPrivateData),
                new Scenario("rdma_cm: an address nobody has fails as the netdev's neighbour discovery decides",
                        CmScenarios::unreachableAddress),
                new Scenario("rdma_cm: binding a port another id listens on fails with EADDRINUSE",
                        CmScenarios::portInUse),
                new Scenario("rdma_cm: the provider's first address of the device is its CM address, and an id "
                        + "bound to it is on that device", CmScenarios::deviceAddress),
                new Scenario("rdma_destroy_id with an unacknowledged event would block: strict refuses, cascade "
                        + "acknowledges it first", CmScenarios::idWithUnacknowledgedEvent),
                new Scenario("rdma_destroy_id with a QP would leak it: strict refuses, cascade destroys the QP first",
                        CmScenarios::idWithQueuePair),
                new Scenario("rdma_destroy_event_channel with an id and an event on it is void: strict refuses, "
                        + "cascade releases them first", CmScenarios::channelWithIdAndEvent),
                new Scenario("a connected id: strict refuses; cascade disconnects and, the peer answering, "
                        + "destroys it on DISCONNECTED", CmScenarios::connectedIdPeerAnswers),
                new Scenario("a connected id whose peer never answers: cascade gives up after the disconnect "
                        + "timeout and destroys it", CmScenarios::connectedIdPeerSilent),
                new Scenario("an accepted id whose ESTABLISHED is not read yet: strict refuses it as connected; "
                        + "cascade disconnects and, the peer answering, destroys it on DISCONNECTED",
                        CmScenarios::acceptedIdEstablishedUnread),
                new Scenario("a listening id with an unanswered request: strict refuses naming it, cascade rejects "
                        + "it", CmScenarios::listenerWithPendingRequest),
                new Scenario("rdma_cm: bad arguments and calls in the wrong state are refused in Java, leaving "
                        + "nothing", CmScenarios::badArgumentsAndWrongState));
    }

    /**
     * The scenarios that make no connection, which {@link FaultSweepTest} sweeps at every provider call on
     * both profiles. The others wait on purpose (a peer kept silent for a disconnect timeout, a channel
     * watched for {@link #QUIET}) in each of their runs, so they are swept verb by verb on one profile
     * ({@link ScenarioCatalog#connecting()}).
     */
    static List<Scenario> withoutConnection() {
        List<String> connecting = List.of("connect, accept", "a reject", "a connected id", "an accepted id",
                "a listening id");
        return all().stream().filter(s -> connecting.stream().noneMatch(s.name()::contains)).toList();
    }

    // ---- scenarios ------------------------------------------------------------------------------------

    static void connectAcceptExchangeDisconnect(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        Pair p = Pair.connect(run, HELLO, WELCOME);
        assertThat(p.client.role()).isEqualTo(CmIdRole.CONNECTED);
        assertThat(p.passive.role()).isEqualTo(CmIdRole.CONNECTED);
        assertThat(p.clientQp.state()).as("the CM moved it to RTS").isEqualTo(QpState.RTS);
        assertThat(p.passive.peerAddress()).isEqualTo(p.client.localAddress());

        p.send(steps, "client", p.clientQp, p.clientCq, p.serverCq, ascii("a message from the client, checksummed"));
        p.send(steps, "server", p.serverQp, p.serverCq, p.clientCq, ascii("and the server's answer, checksummed too"));

        // The DREQ reaches the server at once; the client's DISCONNECTED waits for the server's DREP.
        steps.ok("rdma_disconnect, client", p.client::disconnect);
        ack(steps, "server", p.serverChannel, CmEventType.DISCONNECTED);
        nothing(steps, "client, before the server answers", p.clientChannel);
        steps.ok("rdma_disconnect, server (its DREP)", p.passive::disconnect);
        ack(steps, "client", p.clientChannel, CmEventType.DISCONNECTED);
        steps.ok("rdma_disconnect, client, again", p.client::disconnect);
        nothing(steps, "client, after a second disconnect", p.clientChannel);
        assertThat(p.clientQp.state()).as("rdma_disconnect moved it").isEqualTo(QpState.ERR);
        assertThat(p.serverQp.state()).as("the DREP moved it").isEqualTo(QpState.ERR);
        p.closeInOrder(steps);
    }

    static void rejectWithPrivateData(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        Ends ends = Ends.open(run);
        int port = ends.listen(steps);
        Side client = ends.resolvedClient(steps, port);
        steps.ok("rdma_connect", () -> client.id.connect(CmConnectionParams.defaults().withPrivateData(HELLO)));
        CmEvent request = expect(steps, "server", ends.serverChannel, CmEventType.CONNECT_REQUEST);
        CmId passive = request.cmId();
        steps.ok("rdma_reject with private data", () -> passive.reject(GO_AWAY));
        steps.ok("rdma_ack_cm_event CONNECT_REQUEST", request::ack);
        CmEvent rejected = expect(steps, "client", ends.clientChannel, CmEventType.REJECTED);
        assertThat(rejected.status()).as("IB_CM_REJ_CONSUMER_DEFINED").isEqualTo(28);
        assertThat(Arrays.copyOf(rejected.privateData(), GO_AWAY.length)).isEqualTo(GO_AWAY);
        steps.ok("rdma_ack_cm_event REJECTED", rejected::ack);
        assertThat(client.id.role()).isEqualTo(CmIdRole.REJECTED);
        steps.ok("rdma_destroy_id of the rejected request", passive::close);
        steps.ok("rdma_destroy_qp", client.qp::close);
        steps.ok("rdma_destroy_id, client", client.id::close);
        steps.ok("rdma_destroy_id, listener", ends.listener::close);
    }

    /**
     * What {@code rdma_resolve_addr(3)} answers for a link-local address nobody has depends on the netdev.
     * With neighbour discovery the kernel's address resolution times out: ADDR_ERROR, {@code -ETIMEDOUT}.
     * On an {@code IFF_NOARP} netdev (dummy0, rxe0's in the soft-RoCE guest) the neighbour is valid at
     * once: the address and route resolve and the REQ goes unanswered; the IB CM gives up with UNREACHABLE
     * only after its retries (about 100 s), so the scenario watches a moment and then closes the id.
     */
    static void unreachableAddress(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        InetSocketAddress nobody = new InetSocketAddress(nobodyNear(run.cmAddress()), 7471);
        CmEventChannel channel = steps.make("rdma_create_event_channel", () -> run.verbs().createCmEventChannel("ch"));
        CmId id = steps.make("rdma_create_id", () -> channel.createId(CmPortSpace.TCP, "client"));
        steps.ok("rdma_resolve_addr to an address nobody has", () -> id.resolveAddress(null, nobody,
                Duration.ofMillis(500)));
        if (run.neighbourDiscovery()) {
            CmEvent error = expect(steps, "client", channel, CmEventType.ADDR_ERROR);
            assertThat(error.status()).isEqualTo(-Errno.ETIMEDOUT.number());
            steps.ok("rdma_ack_cm_event", error::ack);
            assertThat(id.role()).isEqualTo(CmIdRole.FAILED);
        } else {
            ack(steps, "client", channel, CmEventType.ADDR_RESOLVED);
            steps.ok("rdma_resolve_route", () -> id.resolveRoute(RESOLVE));
            ack(steps, "client", channel, CmEventType.ROUTE_RESOLVED);
            DeviceContext ctx = Objects.requireNonNull(id.context());
            ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
            CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16), "cq");
            id.createQueuePair(pd, QueuePairSpec.rc(cq, cq, CAPS), "qp");
            steps.ok("rdma_connect", () -> id.connect(CmConnectionParams.defaults()));
            nothing(steps, "client, while the REQ is resent", channel);
            assertThat(id.role()).isEqualTo(CmIdRole.CONNECTING);
        }
        steps.ok("close the id, cascade", () -> id.close(ClosePolicy.CASCADE));
        steps.ok("rdma_destroy_event_channel", channel::close);
    }

    static void portInUse(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        CmEventChannel channel = steps.make("rdma_create_event_channel", () -> run.verbs().createCmEventChannel("ch"));
        CmId first = steps.make("rdma_create_id", () -> channel.createId(CmPortSpace.TCP, "first"));
        CmId second = steps.make("rdma_create_id", () -> channel.createId(CmPortSpace.TCP, "second"));
        steps.ok("rdma_bind_addr, port 0", () -> first.bind(new InetSocketAddress(run.cmAddress(), 0)));
        steps.ok("rdma_listen", () -> first.listen(4));
        InetSocketAddress bound = Objects.requireNonNull(first.localAddress());
        assertThat(bound.getPort()).as("port 0 picked one").isPositive();
        VerbsException e = steps.fails("rdma_bind_addr to the port in use", Errno.EADDRINUSE, () -> second.bind(bound));
        assertThat(e.verb()).isEqualTo("rdma_bind_addr");
        assertThat(second.role()).as("a failed bind changes nothing").isEqualTo(CmIdRole.IDLE);
        steps.ok("rdma_bind_addr, another port", () -> second.bind(new InetSocketAddress(run.cmAddress(), 0)));
        steps.ok("rdma_destroy_id", second::close);
        steps.ok("rdma_destroy_id", first::close);
        steps.ok("rdma_destroy_event_channel", channel::close);
    }

    static void deviceAddress(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        String device = run.device().name();
        List<InetAddress> addresses = steps.make("the provider's addresses of the device",
                () -> run.provider().connectionVerbs().addresses(device));
        InetAddress first = addresses.getFirst();
        InetAddress cm = run.cmAddress();
        assertThat(first.getAddress()).as("%s's first address against its CM address %s", device, cm)
                .isEqualTo(cm.getAddress());
        if (cm instanceof Inet6Address scoped && scoped.getScopedInterface() != null) {
            assertThat(((Inet6Address) first).getScopedInterface()).as("the netdev a link-local address is scoped to")
                    .isEqualTo(scoped.getScopedInterface());
        }
        CmEventChannel channel = steps.make("rdma_create_event_channel", () -> run.verbs().createCmEventChannel("ch"));
        CmId id = steps.make("rdma_create_id", () -> channel.createId(CmPortSpace.TCP, "bound"));
        steps.ok("rdma_bind_addr to that address, port 0", () -> id.bind(new InetSocketAddress(first, 0)));
        assertThat(Objects.requireNonNull(id.context()).device().name()).as("the device of the bound id")
                .isEqualTo(device);
        steps.rejected("the addresses of a device the host does not have", IllegalArgumentException.class,
                () -> run.provider().connectionVerbs().addresses("nosuchdev9"));
        steps.ok("rdma_destroy_id", id::close);
        steps.ok("rdma_destroy_event_channel", channel::close);
    }

    static void idWithUnacknowledgedEvent(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        CmEventChannel channel = steps.make("rdma_create_event_channel", () -> run.verbs().createCmEventChannel("ch"));
        CmId id = steps.make("rdma_create_id", () -> channel.createId(CmPortSpace.TCP, "id"));
        steps.ok("rdma_resolve_addr", () -> id.resolveAddress(null, new InetSocketAddress(run.cmAddress(), 7471),
                RESOLVE));
        CmEvent resolved = expect(steps, "id", channel, CmEventType.ADDR_RESOLVED);
        StuckReference s = ReleaseRuleScenarios.predicted(id, resolved);
        assertThat(s.verb()).isEqualTo("rdma_destroy_id");
        assertThat(s.consequence()).isEqualTo(StuckReference.Consequence.BLOCKS_FOREVER);
        assertThat(s.cause()).isEqualTo(Cause.UNACKNOWLEDGED_CM_EVENTS);
        CloseRefusedException refused = steps.refused("rdma_destroy_id, strict", id::close);
        assertThat(refused.getMessage()).contains("RDMA_CM_EVENT_ADDR_RESOLVED", "rdma_destroy_id(3)");
        assertThat(id.isOpen()).as("a refused close touches nothing").isTrue();
        steps.ok("rdma_destroy_id, cascade", () -> id.close(ClosePolicy.CASCADE));
        assertThat(resolved.isAcknowledged()).as("the cascade acknowledged it first").isTrue();
        steps.ok("rdma_destroy_event_channel", channel::close);
    }

    static void idWithQueuePair(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        CmEventChannel channel = steps.make("rdma_create_event_channel", () -> run.verbs().createCmEventChannel("ch"));
        CmId id = steps.make("rdma_create_id", () -> channel.createId(CmPortSpace.TCP, "id"));
        steps.ok("rdma_bind_addr", () -> id.bind(new InetSocketAddress(run.cmAddress(), 0)));
        DeviceContext ctx = Objects.requireNonNull(id.context(), "a bound id has librdmacm's context");
        assertThat(ctx.isAdopted()).isTrue();
        ProtectionDomain pd = steps.make("ibv_alloc_pd on id->verbs", () -> ctx.allocateProtectionDomain("pd"));
        CompletionQueue cq = steps.make("ibv_create_cq on id->verbs",
                () -> ctx.createCompletionQueue(CompletionQueueSpec.of(16), "cq"));
        QueuePair qp = steps.make("rdma_create_qp", () -> id.createQueuePair(pd, QueuePairSpec.rc(cq, cq, CAPS), "qp"));
        assertThat(qp.state()).as("rdma_create_qp moves an RC QP to INIT").isEqualTo(QpState.INIT);
        StuckReference s = ReleaseRuleScenarios.predicted(id, qp);
        assertThat(s.message()).contains("rdma_destroy_qp first");
        steps.refused("rdma_destroy_id, strict", id::close);
        steps.refused("ibv_dealloc_pd, strict", pd::close);
        steps.ok("rdma_destroy_id, cascade", () -> id.close(ClosePolicy.CASCADE));
        assertThat(qp.isClosed()).as("rdma_destroy_qp came first").isTrue();
        steps.ok("ibv_destroy_cq", cq::close);
        steps.ok("ibv_dealloc_pd", pd::close);
        steps.ok("rdma_destroy_event_channel", channel::close);
    }

    static void channelWithIdAndEvent(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        CmEventChannel channel = steps.make("rdma_create_event_channel", () -> run.verbs().createCmEventChannel("ch"));
        CmId id = steps.make("rdma_create_id", () -> channel.createId(CmPortSpace.TCP, "id"));
        steps.ok("rdma_resolve_addr", () -> id.resolveAddress(null, new InetSocketAddress(run.cmAddress(), 7471),
                RESOLVE));
        CmEvent resolved = expect(steps, "id", channel, CmEventType.ADDR_RESOLVED);
        StuckReference byId = ReleaseRuleScenarios.predicted(channel, id);
        assertThat(byId.consequence()).isEqualTo(StuckReference.Consequence.LEAKS);
        assertThat(byId.message()).contains("rdma_destroy_event_channel(3)");
        assertThat(ReleaseRuleScenarios.predicted(channel, resolved).cause()).isEqualTo(Cause.UNACKNOWLEDGED_CM_EVENTS);
        steps.refused("rdma_destroy_event_channel, strict", channel::close);
        steps.refused("rdma_destroy_event_channel, attempt", () -> channel.close(ClosePolicy.ATTEMPT));
        assertThat(channel.isOpen()).as("the void call was never made").isTrue();
        steps.ok("rdma_destroy_event_channel, cascade", () -> channel.close(ClosePolicy.CASCADE));
        assertThat(resolved.isAcknowledged()).isTrue();
        assertThat(id.isClosed()).isTrue();
    }

    static void connectedIdPeerAnswers(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        Pair p = Pair.connect(run, HELLO, WELCOME);
        StuckReference live = p.client.stuckReferences().stream().filter(s -> s.cause() == Cause.LIVE_CONNECTION)
                .findFirst().orElseThrow();
        assertThat(live.message()).contains("rdma_disconnect(3)");
        steps.refused("rdma_destroy_id of the connected id, strict", p.client::close);
        steps.refused("rdma_destroy_qp of the connected id's QP, strict", p.clientQp::close);
        assertThat(p.client.role()).isEqualTo(CmIdRole.CONNECTED);
        p.clientChannel.disconnectTimeout(EVENT_WAIT);
        // The server answers the DREQ as an application would: DISCONNECTED, then its own rdma_disconnect.
        Thread peer = Thread.ofPlatform().name("cm-peer").start(() -> {
            try {
                CmEvent d = p.serverChannel.awaitEvent(EVENT_WAIT).orElseThrow();
                d.ack();
                p.passive.disconnect();
            } catch (RuntimeException e) {
                // The close below then waits its timeout; the assertion on its time reports it.
            }
        });
        long start = System.nanoTime();
        steps.ok("close the connected id, cascade", () -> p.client.close(ClosePolicy.CASCADE));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        peer.join(EVENT_WAIT.toMillis());
        assertThat(took).as("DISCONNECTED came with the peer's DREP, long before the timeout")
                .isLessThan(EVENT_WAIT.dividedBy(2));
        assertThat(p.clientQp.isClosed()).isTrue();
        assertThat(p.passive.role()).isEqualTo(CmIdRole.DISCONNECTED);
        p.closeServer(steps);
    }

    static void connectedIdPeerSilent(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        Pair p = Pair.connect(run, HELLO, WELCOME);
        Duration timeout = Duration.ofMillis(500);
        p.clientChannel.disconnectTimeout(timeout);
        long start = System.nanoTime();
        steps.ok("close the connected id, cascade", () -> p.client.close(ClosePolicy.CASCADE));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("waited the disconnect timeout for a DREP that never came").isGreaterThanOrEqualTo(timeout)
                .isLessThan(timeout.plus(Duration.ofSeconds(5)));
        assertThat(p.client.isClosed()).isTrue();
        assertThat(p.clientQp.isClosed()).isTrue();
        ack(steps, "server", p.serverChannel, CmEventType.DISCONNECTED);
        assertThat(p.passive.role()).isEqualTo(CmIdRole.DISCONNECTED);
        p.closeServer(steps);
    }

    /**
     * The passive side between its {@code rdma_accept} and its read of ESTABLISHED: a close of the id ends a
     * connection (the peer is connected, or will be with its next read), so a cascade disconnects first. The
     * client reads its events only once that disconnect went out, so that its RTU comes after it: the kernel's
     * CM, not established when the server disconnected, sent no DREQ (it sends one only when established), and
     * only the cascade's second disconnect, once it reads ESTABLISHED, ends the connection before the timeout.
     */
    static void acceptedIdEstablishedUnread(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        Ends ends = Ends.open(run);
        int port = ends.listen(steps);
        Side c = ends.resolvedClient(steps, port);
        steps.ok("rdma_connect", () -> c.id.connect(CmConnectionParams.defaults()));
        CmEvent request = expect(steps, "server", ends.serverChannel, CmEventType.CONNECT_REQUEST);
        CmId passive = request.cmId();
        Side s = Side.on(steps, "server", passive);
        steps.ok("rdma_accept", () -> passive.accept(CmConnectionParams.defaults()));
        steps.ok("rdma_ack_cm_event CONNECT_REQUEST", request::ack);
        assertThat(passive.isAcceptedAwaitingEstablished()).as("its ESTABLISHED is not read").isTrue();
        StuckReference live = passive.stuckReferences().stream().filter(r -> r.cause() == Cause.LIVE_CONNECTION)
                .findFirst().orElseThrow(() -> new AssertionError("no live connection: " + passive.stuckReferences()));
        assertThat(live.consequence()).isEqualTo(StuckReference.Consequence.ABORTS_CONNECTION);
        assertThat(live.message()).contains("its ESTABLISHED not read yet");
        steps.refused("rdma_destroy_id of the accepted id, strict", passive::close);
        steps.refused("rdma_destroy_qp of the accepted id's QP, strict", s.qp::close);
        ends.serverChannel.disconnectTimeout(EVENT_WAIT);
        // The client reads once the server disconnected, then answers the DREQ as an application would.
        CompletableFuture<List<CmEventType>> client = CompletableFuture.supplyAsync(() -> {
            long until = System.nanoTime() + EVENT_WAIT.toNanos();
            while (!passive.disconnectRequested() && System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
            CmEvent established = ends.clientChannel.awaitEvent(EVENT_WAIT).orElseThrow();
            established.ack();
            CmEvent disconnected = ends.clientChannel.awaitEvent(EVENT_WAIT).orElseThrow();
            disconnected.ack();
            c.id.disconnect();
            return List.of(established.type(), disconnected.type());
        });
        long start = System.nanoTime();
        steps.ok("close the accepted id, cascade", () -> passive.close(ClosePolicy.CASCADE));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(client.get(EVENT_WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .containsExactly(CmEventType.ESTABLISHED, CmEventType.DISCONNECTED);
        assertThat(took).as("DISCONNECTED came with the client's DREP, long before the timeout")
                .isLessThan(EVENT_WAIT.dividedBy(2));
        assertThat(s.qp.isClosed()).isTrue();
        assertThat(c.id.role()).isEqualTo(CmIdRole.DISCONNECTED);
        c.close(steps, "client");
        steps.ok("rdma_destroy_id, client", c.id::close);
        steps.ok("rdma_destroy_id, listener", ends.listener::close);
        run.verbs().close(List.of(s.mr(), s.cq(), s.pd(), ends.clientChannel, ends.serverChannel), ClosePolicy.STRICT);
    }

    static void listenerWithPendingRequest(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        Ends ends = Ends.open(run);
        int port = ends.listen(steps);
        Side client = ends.resolvedClient(steps, port);
        steps.ok("rdma_connect", () -> client.id.connect(CmConnectionParams.defaults().withPrivateData(HELLO)));
        CmEvent request = expect(steps, "server", ends.serverChannel, CmEventType.CONNECT_REQUEST);
        CmId passive = request.cmId();
        steps.ok("rdma_ack_cm_event CONNECT_REQUEST", request::ack);
        assertThat(passive.role()).isEqualTo(CmIdRole.PASSIVE);
        CloseRefusedException refused = steps.refused("rdma_destroy_id of the listener, strict", ends.listener::close);
        assertThat(refused.stuckReferences()).anySatisfy(s -> {
            assertThat(s.cause()).isEqualTo(Cause.PENDING_CONNECTION_REQUEST);
            assertThat(s.message()).contains(passive.ref().toString());
        });
        steps.ok("close the listener, cascade", () -> ends.listener.close(ClosePolicy.CASCADE));
        assertThat(passive.isClosed()).as("the cascade rejected and released the request").isTrue();
        CmEvent rejected = expect(steps, "client", ends.clientChannel, CmEventType.REJECTED);
        assertThat(rejected.status()).isEqualTo(28);
        steps.ok("rdma_ack_cm_event REJECTED", rejected::ack);
        steps.ok("rdma_destroy_qp", client.qp::close);
        steps.ok("rdma_destroy_id, client", client.id::close);
    }

    static void badArgumentsAndWrongState(ScenarioRun run) throws Exception {
        Steps steps = run.steps();
        InetAddress address = run.cmAddress();
        Map<String, Integer> before = run.liveObjects();
        CmEventChannel channel = steps.make("rdma_create_event_channel", () -> run.verbs().createCmEventChannel("ch"));
        CmId id = steps.make("rdma_create_id", () -> channel.createId(CmPortSpace.TCP, "id"));
        steps.rejected("rdma_create_id without a port space", NullPointerException.class,
                () -> channel.createId(null));
        steps.rejected("rdma_bind_addr to a host name", IllegalArgumentException.class,
                () -> id.bind(InetSocketAddress.createUnresolved("localhost", 1)));
        steps.rejected("rdma_resolve_addr with a zero timeout", IllegalArgumentException.class,
                () -> id.resolveAddress(null, new InetSocketAddress(address, 1), Duration.ZERO));
        steps.rejected("rdma_listen with a negative backlog", IllegalArgumentException.class, () -> id.listen(-1));
        steps.fails("rdma_listen before rdma_bind_addr", Errno.EINVAL, () -> id.listen(4));
        steps.fails("rdma_resolve_route before rdma_resolve_addr", Errno.EINVAL, () -> id.resolveRoute(RESOLVE));
        steps.fails("rdma_connect before the route", Errno.EINVAL, () -> id.connect(CmConnectionParams.defaults()));
        steps.fails("rdma_accept of an id that is no request", Errno.EINVAL,
                () -> id.accept(CmConnectionParams.defaults()));
        steps.fails("rdma_disconnect of an id never connected", Errno.EINVAL, id::disconnect);
        steps.rejected("rdma_connect with 57 bytes of private data", IllegalArgumentException.class,
                () -> id.connect(CmConnectionParams.defaults().withPrivateData(new byte[57])));
        steps.rejected("rdma_reject with 149 bytes of private data", IllegalArgumentException.class,
                () -> id.reject(new byte[149]));
        assertThat(id.role()).as("nothing moved it").isEqualTo(CmIdRole.IDLE);
        DeviceContext ctx = run.open();
        ProtectionDomain foreignPd = ctx.allocateProtectionDomain("pd of an opened context");
        CompletionQueue foreignCq = ctx.createCompletionQueue(CompletionQueueSpec.of(8), "cq");
        steps.fails("rdma_create_qp before the id has a context", Errno.EINVAL,
                () -> id.createQueuePair(foreignPd, QueuePairSpec.rc(foreignCq, foreignCq, CAPS)));
        steps.ok("rdma_bind_addr", () -> id.bind(new InetSocketAddress(address, 0)));
        steps.rejected("rdma_create_qp with a PD of another context", IllegalArgumentException.class,
                () -> id.createQueuePair(foreignPd, QueuePairSpec.rc(foreignCq, foreignCq, CAPS)));
        steps.rejected("rdma_create_qp of type UD on an RDMA_PS_TCP id", IllegalArgumentException.class,
                () -> id.createQueuePair(foreignPd, QueuePairSpec.ud(foreignCq, foreignCq, CAPS)));
        assertThat(id.queuePair()).isNull();
        steps.fails("rdma_bind_addr twice", Errno.EINVAL, () -> id.bind(new InetSocketAddress(address, 0)));
        steps.ok("close", () -> run.verbs().close(List.of(foreignCq, foreignPd, ctx, id, channel), ClosePolicy.STRICT));
        assertThat(run.liveObjects()).as("the refusals allocated nothing").isEqualTo(before);
    }

    // ---- building blocks ----------------------------------------------------------------------------

    /** A listening id on one channel and a client's channel, both on the run's graph. */
    record Ends(ScenarioRun run, CmEventChannel serverChannel, CmEventChannel clientChannel, CmId listener) {

        static Ends open(ScenarioRun run) throws Exception {
            Steps steps = run.steps();
            CmEventChannel server = steps.make("rdma_create_event_channel, server",
                    () -> run.verbs().createCmEventChannel("server-events"));
            CmEventChannel client = steps.make("rdma_create_event_channel, client",
                    () -> run.verbs().createCmEventChannel("client-events"));
            CmId listener = steps.make("rdma_create_id, listener", () -> server.createId(CmPortSpace.TCP, "listener"));
            return new Ends(run, server, client, listener);
        }

        /** Binds the listener to the CM address, port 0, and listens: the port picked. */
        int listen(Steps steps) throws Exception {
            steps.ok("rdma_bind_addr, port 0", () -> listener.bind(new InetSocketAddress(run.cmAddress(), 0)));
            steps.ok("rdma_listen", () -> listener.listen(4));
            return Objects.requireNonNull(listener.localAddress()).getPort();
        }

        /** A client id resolved towards the listener, with a PD, CQ and QP on librdmacm's context. */
        Side resolvedClient(Steps steps, int port) throws Exception {
            CmId id = steps.make("rdma_create_id, client", () -> clientChannel.createId(CmPortSpace.TCP, "client"));
            steps.ok("rdma_resolve_addr", () -> id.resolveAddress(null, new InetSocketAddress(run.cmAddress(), port),
                    RESOLVE));
            ack(steps, "client", clientChannel, CmEventType.ADDR_RESOLVED);
            steps.ok("rdma_resolve_route", () -> id.resolveRoute(RESOLVE));
            ack(steps, "client", clientChannel, CmEventType.ROUTE_RESOLVED);
            return Side.on(steps, "client", id);
        }
    }

    /** What one side of a connection made on its id's context. */
    record Side(CmId id, ProtectionDomain pd, CompletionQueue cq, QueuePair qp, MemoryRegion mr) {

        static final int BUFFER = 4096;

        static Side on(Steps steps, String side, CmId id) throws Exception {
            DeviceContext ctx = Objects.requireNonNull(id.context(), "a resolved id has a context");
            assertThat(ctx.isAdopted()).as("librdmacm's own context").isTrue();
            ProtectionDomain pd = steps.make("ibv_alloc_pd, " + side, () -> ctx.allocateProtectionDomain(side + "/pd"));
            CompletionQueue cq = steps.make("ibv_create_cq, " + side,
                    () -> ctx.createCompletionQueue(CompletionQueueSpec.of(32), side + "/cq"));
            MemoryRegion mr = steps.make("ibv_reg_mr, " + side, () -> pd.allocateMemory(2 * BUFFER, LOCAL, side + "/mr"));
            QueuePair qp = steps.make("rdma_create_qp, " + side,
                    () -> id.createQueuePair(pd, QueuePairSpec.rc(cq, cq, CAPS), side + "/qp"));
            try (ReceiveRequest recv = qp.newReceiveRequest(1)) {
                recv.wrId(1).single(mr, BUFFER, BUFFER);
                steps.ok("ibv_post_recv, " + side, () -> qp.postReceive(recv));
            }
            return new Side(id, pd, cq, qp, mr);
        }

        void close(Steps steps, String side) throws Exception {
            steps.ok("rdma_destroy_qp, " + side, qp::close);
            steps.ok("ibv_dereg_mr, " + side, mr::close);
            steps.ok("ibv_destroy_cq, " + side, cq::close);
            steps.ok("ibv_dealloc_pd, " + side, pd::close);
        }
    }

    /** A connection made through the graph: the client's and the accepted request's ends, both ESTABLISHED. */
    record Pair(Ends ends, Side clientSide, Side serverSide, CmId client, CmId passive, QueuePair clientQp,
            QueuePair serverQp, CompletionQueue clientCq, CompletionQueue serverCq, CmEventChannel clientChannel,
            CmEventChannel serverChannel) {

        static Pair connect(ScenarioRun run, byte[] requestData, byte[] acceptData) throws Exception {
            Steps steps = run.steps();
            Ends ends = Ends.open(run);
            int port = ends.listen(steps);
            Side c = ends.resolvedClient(steps, port);
            steps.ok("rdma_connect with private data",
                    () -> c.id.connect(CmConnectionParams.defaults().withPrivateData(requestData)));
            CmEvent request = expect(steps, "server", ends.serverChannel, CmEventType.CONNECT_REQUEST);
            assertThat(Arrays.copyOf(request.privateData(), requestData.length)).isEqualTo(requestData);
            assertThat(request.listenId()).isSameAs(ends.listener);
            CmId passive = request.cmId();
            assertThat(passive.role()).isEqualTo(CmIdRole.PASSIVE);
            assertThat(passive.context()).as("one adopted context per device").isSameAs(c.id.context());
            Side s = Side.on(steps, "server", passive);
            steps.ok("rdma_accept with private data",
                    () -> passive.accept(CmConnectionParams.defaults().withPrivateData(acceptData)));
            steps.ok("rdma_ack_cm_event CONNECT_REQUEST", request::ack);
            CmEvent established = expect(steps, "client", ends.clientChannel, CmEventType.ESTABLISHED);
            assertThat(Arrays.copyOf(established.privateData(), acceptData.length)).isEqualTo(acceptData);
            steps.ok("rdma_ack_cm_event ESTABLISHED", established::ack);
            ack(steps, "server", ends.serverChannel, CmEventType.ESTABLISHED);
            return new Pair(ends, c, s, c.id, passive, c.qp, s.qp, c.cq, s.cq, ends.clientChannel,
                    ends.serverChannel);
        }

        /** Sends {@code message} from {@code qp}; the peer's receive holds it, checksum for checksum. */
        void send(Steps steps, String from, QueuePair qp, CompletionQueue ownCq, CompletionQueue peerCq,
                byte[] message) throws Exception {
            Side own = qp == clientQp ? clientSide : serverSide;
            Side peer = qp == clientQp ? serverSide : clientSide;
            MemorySegment.copy(message, 0, own.mr.segment(), ValueLayout.JAVA_BYTE, 0, message.length);
            long crc = crc(own.mr.segment(), 0, message.length);
            try (SendRequest send = qp.newSendRequest(1)) {
                send.wrId(2).opcode(SendOpcode.SEND).flags(SendFlag.SIGNALED).single(own.mr, 0, message.length);
                steps.ok("ibv_post_send, " + from, () -> qp.postSend(send));
            }
            try (WorkCompletions wc = ownCq.newWorkCompletions(4)) {
                Fixtures.pollFor(ownCq, wc, 1, EVENT_WAIT);
                steps.observed("send completion, " + from, wc.status(0).name());
            }
            try (WorkCompletions wc = peerCq.newWorkCompletions(4)) {
                Fixtures.pollFor(peerCq, wc, 1, EVENT_WAIT);
                steps.observed("receive completion of " + from + "'s message", wc.status(0).name() + " "
                        + wc.byteLength(0) + " bytes");
                assertThat(wc.byteLength(0)).isEqualTo(message.length);
            }
            assertThat(crc(peer.mr.segment(), Side.BUFFER, message.length)).as("the checksum of %s's message", from)
                    .isEqualTo(crc);
            try (ReceiveRequest recv = peer.qp.newReceiveRequest(1)) {
                recv.wrId(1).single(peer.mr, Side.BUFFER, Side.BUFFER);
                peer.qp.postReceive(recv);
            }
        }

        /** Every resource in release order, the QPs before their ids, each a step. */
        void closeInOrder(Steps steps) throws Exception {
            clientSide.close(steps, "client");
            serverSide.close(steps, "server");
            steps.ok("rdma_destroy_id, accepted", passive::close);
            steps.ok("rdma_destroy_id, client", client::close);
            steps.ok("rdma_destroy_id, listener", ends.listener::close);
            steps.ok("rdma_destroy_event_channel, client", clientChannel::close);
            steps.ok("rdma_destroy_event_channel, server", serverChannel::close);
        }

        /** The server's end once the client's is gone: its QP and resources, the ids, the channels. */
        void closeServer(Steps steps) throws Exception {
            serverSide.close(steps, "server");
            steps.ok("rdma_destroy_id, accepted", passive::close);
            steps.ok("rdma_destroy_id, listener", ends.listener::close);
            ends.run.verbs().close(List.of(clientSide.mr, clientSide.cq, clientSide.pd, clientChannel, serverChannel),
                    ClosePolicy.STRICT);
        }
    }

    /** Waits for the next event on {@code channel}, records it (type, status, private-data length), checks its type. */
    static CmEvent expect(Steps steps, String side, CmEventChannel channel, CmEventType type) {
        Optional<CmEvent> next = channel.awaitEvent(EVENT_WAIT);
        steps.observed(side + ": next event", next.map(CmScenarios::describe).orElse("none in " + EVENT_WAIT));
        CmEvent event = next.orElseThrow(() -> new AssertionError(side + ": no " + type.cName() + " in " + EVENT_WAIT));
        assertThat(event.type()).as("%s: the event after %s", side, steps.outcomes()).isEqualTo(type);
        return event;
    }

    /**
     * {@link #expect}, but the request behind the event is asynchronous: when {@code request} fails first
     * (it never sent what the event answers), its failure ends the wait instead of the timeout.
     */
    static CmEvent expectUnless(CompletableFuture<?> request, Steps steps, String side,
            CmEventChannel channel, CmEventType type) {
        long deadline = System.nanoTime() + EVENT_WAIT.toNanos();
        while (!request.isCompletedExceptionally() && System.nanoTime() < deadline) {
            Optional<CmEvent> next = channel.awaitEvent(QUIET);
            if (next.isPresent()) {
                steps.observed(side + ": next event", describe(next.get()));
                assertThat(next.get().type()).as("%s: the event after %s", side, steps.outcomes()).isEqualTo(type);
                return next.get();
            }
        }
        request.join();
        steps.observed(side + ": next event", "none in " + EVENT_WAIT);
        throw new AssertionError(side + ": no " + type.cName() + " in " + EVENT_WAIT);
    }

    /** {@link #expect} and acknowledge. */
    static void ack(Steps steps, String side, CmEventChannel channel, CmEventType type) throws Exception {
        CmEvent event = expect(steps, side, channel, type);
        steps.ok("rdma_ack_cm_event " + type.name(), event::ack);
    }

    /** Records that no event comes on {@code channel} for a moment. */
    static void nothing(Steps steps, String side, CmEventChannel channel) {
        Optional<CmEvent> next = channel.awaitEvent(QUIET);
        steps.observed(side + ": next event", next.map(CmScenarios::describe).orElse("none"));
        next.ifPresent(CmEvent::ack);
        assertThat(next).as("%s: no event yet", side).isEmpty();
    }

    static String describe(CmEvent e) {
        String data = e.privateData().length == 0 ? "" : " data=" + e.privateData().length;
        return e.type().cName() + " " + e.status() + data;
    }

    /** {@code fe80::dead:beef} on the link of {@code address} (its scope id, when it has one). */
    static InetAddress nobodyNear(InetAddress address) throws UnknownHostException {
        byte[] nobody = InetAddress.getByName("fe80::dead:beef").getAddress();
        if (address instanceof Inet6Address v6 && v6.getScopedInterface() != null) {
            return Inet6Address.getByAddress(null, nobody, v6.getScopedInterface());
        }
        return InetAddress.getByAddress(nobody);
    }

    static long crc(MemorySegment segment, long offset, int length) {
        CRC32 crc = new CRC32();
        crc.update(segment.asSlice(offset, length).asByteBuffer());
        return crc.getValue();
    }

    static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
