package io.rdmaverbs.spring.boot.autoconfigure.connections;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmaverbs.spring.boot.autoconfigure.Contexts.ClosedResources;
import io.rdmaverbs.spring.boot.autoconfigure.connections.Hosts.Host;
import io.rdmaverbs.spring.boot.connections.PeerState;
import io.rdmaverbs.spring.boot.descriptor.ConnectionDescriptor;
import io.rdmaverbs.spring.boot.endpoint.VerbsEndpoint;
import io.rdmaverbs.spring.boot.health.RdmaConnectionsHealthContributor;
import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.spring.boot.connections.RdmaConnectionEvent;
import io.rdmaverbs.spring.boot.connections.RdmaConnectionsFactory;
import io.rdmaverbs.spring.boot.connections.RdmaListener;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.spring.boot.connections.RdmaPeerConnectedEvent;
import io.rdmaverbs.spring.boot.connections.RdmaPeerDownEvent;
import io.rdmaverbs.spring.boot.connections.RdmaConnectionAcceptedEvent;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.connection.Connections;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Listeners and peers of two applications on two simulated hosts of one wire: the exchange, a peer
 * whose listener is not up yet, a listener that goes away and comes back, the circuit breaker, and the
 * shutdown.
 */
class ConnectedHostsTests {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Hosts hosts = new Hosts();
    private final Host a = hosts.host("rxe0");
    private final Host b = hosts.host("rxe1");

    @Test
    void nothingIsCreatedWhileNoListenerOrPeerIsDeclared() {
        a.runner().run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RdmaConnectionsFactory.class)
                    .doesNotHaveBean(Connections.class);
            assertThat(context.getBean(Verbs.class).resources()).isEmpty();
        });
    }

    @Test
    void declaredConnectionsAreSwitchedOffByTheEnabledProperty() {
        a.echoListener().withPropertyValues("rdma.verbs.connections.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RdmaListener.class).doesNotHaveBean(Connections.class);
            assertThat(context.getBean(Verbs.class).resources()).isEmpty();
        });
    }

    @Test
    void aPeerAndTheListenerOfAnotherHostExchangeMessagesWithIntactChecksums() {
        a.echoListener().run(listenerSide -> {
            assertThat(listenerSide).hasNotFailed();
            b.echoPeer(a).run(peerSide -> {
                assertThat(peerSide).hasNotFailed();
                RdmaPeer peer = peer(peerSide);
                assertThat(peer.awaitConnected(WAIT)).as("connected: %s", peer.lastError()).isTrue();
                SplittableRandom random = new SplittableRandom(42);
                for (int i = 0; i < 200; i++) {
                    byte[] message = new byte[1 + random.nextInt(4096)];
                    random.nextBytes(message);
                    byte[] echo = peer.request(message, WAIT);
                    assertThat(crc(echo)).as("echo %d of %d bytes", i, message.length).isEqualTo(crc(message));
                    assertThat(echo).hasSameSizeAs(message);
                }
                RdmaListener listener = listenerSide.getBean(RdmaListener.class);
                await().atMost(WAIT).until(() -> listener.sessions().size() == 1);
                assertThat(health(listenerSide, "listener-echo").getDetails()).containsEntry("openConnections", 1)
                        .containsEntry("port", 7471);
                Health peerHealth = health(peerSide, "peer-echo");
                assertThat(peerHealth.getStatus()).isEqualTo(Status.UP);
                assertThat(peerHealth.getDetails()).containsEntry("state", "CONNECTED").containsEntry("attempts", 1)
                        .containsEntry("peerAddress", "[" + a.address() + "]:7471").containsEntry("breaker", "CLOSED");
                MeterRegistry peerMeters = peerSide.getBean(MeterRegistry.class);
                assertThat(peerMeters.get("rdma.connections.established").tag("name", "echo").counter().count())
                        .isEqualTo(1);
                assertThat(peerMeters.get("rdma.connections.open").tag("role", "peer").gauge().value()).isEqualTo(1);
                assertThat(peerMeters.get("rdma.connections.setup").tag("role", "peer").timer().count()).isEqualTo(1);
                MeterRegistry listenerMeters = listenerSide.getBean(MeterRegistry.class);
                assertThat(listenerMeters.get("rdma.connections.open").tag("role", "listener").gauge().value())
                        .isEqualTo(1);
            });
        });
    }

    @Test
    void concurrentRequestsOnOnePeerEachGetTheirOwnReply() {
        a.echoListener().run(listenerSide -> b.echoPeer(a).run(peerSide -> {
            RdmaPeer peer = peer(peerSide);
            assertThat(peer.awaitConnected(WAIT)).isTrue();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            List<Thread> threads = java.util.stream.IntStream.range(0, 8).mapToObj(t -> Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 50; i++) {
                    byte[] message = ("thread " + t + " request " + i).getBytes();
                    try {
                        assertThat(peer.request(message, WAIT)).isEqualTo(message);
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }
            })).toList();
            for (Thread thread : threads) {
                thread.join(WAIT);
            }
            assertThat(failures).isEmpty();
        }));
    }

    @Test
    void aPeerThatUsedUpItsAttemptsStopsAndSaysWhy() {
        b.echoPeer(a).withPropertyValues("rdma.verbs.connections.peers.echo.reconnect.max-attempts=3").run(peerSide -> {
            RdmaPeer peer = peer(peerSide);
            await().atMost(WAIT).until(() -> peer.state() == PeerState.STOPPED);
            assertThat(peer.attempts()).isEqualTo(3);
            assertThat(peer.lastError()).contains("RDMA_CM_EVENT_REJECTED", "nothing listens on that port");
            assertThat(health(peerSide, "peer-echo").getDetails()).containsEntry("state", "STOPPED")
                    .containsEntry("attempts", 3);
        });
    }

    @Test
    void aPeerWhoseListenerIsNotUpLetsTheApplicationStartDegradedAndConnectsOnceTheListenerStarts() {
        b.echoPeer(a).run(peerSide -> {
            assertThat(peerSide).hasNotFailed();
            RdmaPeer peer = peer(peerSide);
            await().atMost(WAIT).until(() -> peer.attempts() >= 2);
            Health down = health(peerSide, "peer-echo");
            assertThat(down.getStatus()).isEqualTo(RdmaConnectionsHealthContributor.DEGRADED);
            assertThat(down.getDetails().get("state")).isIn("DOWN", "CONNECTING");
            assertThat((String) down.getDetails().get("lastError")).contains("REJECTED");
            assertThat(aggregate(peerSide)).as("an optional peer down does not take the application down")
                    .isNotEqualTo(Status.DOWN);
            MeterRegistry meters = peerSide.getBean(MeterRegistry.class);

            a.echoListener().run(listenerSide -> {
                assertThat(peer.awaitConnected(WAIT)).as("connected: %s", peer.lastError()).isTrue();
                assertThat(peer.request(new byte[] { 1, 2, 3 }, WAIT)).containsExactly(1, 2, 3);
                assertThat(health(peerSide, "peer-echo").getStatus()).isEqualTo(Status.UP);
                // The retry records its success once the attempt returned, just after the peer turned CONNECTED.
                await().atMost(WAIT).until(() -> meters.get("resilience4j.retry.calls").tag("name", "rdma-peer-echo")
                        .tag("kind", "successful_with_retry").functionCounter().count() == 1);
                assertThat(meters.get("rdma.connections.reconnects").tag("name", "echo").counter().count())
                        .isGreaterThanOrEqualTo(1);
                assertThat(meters.get("rdma.connections.rejected").tag("role", "peer").counter().count())
                        .isGreaterThanOrEqualTo(1);
            });
        });
    }

    @Test
    void aPeerSeesItsListenerGoAwayAndReconnectsWhenItIsBack() {
        List<RdmaConnectionEvent> events = new CopyOnWriteArrayList<>();
        b.echoPeer(a).withBean(ApplicationListener.class, () -> (ApplicationListener<RdmaConnectionEvent>) events::add)
                .run(peerSide -> {
                    RdmaPeer peer = peer(peerSide);
                    a.echoListener().run(listenerSide -> {
                        assertThat(peer.awaitConnected(WAIT)).isTrue();
                        assertThat(peer.request(new byte[] { 7 }, WAIT)).containsExactly(7);
                    });
                    await().atMost(WAIT).until(() -> peer.state() != PeerState.CONNECTED);
                    RdmaPeerDownEvent down = await().atMost(WAIT).until(() -> events.stream()
                            .filter(RdmaPeerDownEvent.class::isInstance).map(RdmaPeerDownEvent.class::cast)
                            .findFirst().orElse(null), e -> e != null);
                    assertThat(down.reason()).contains("DISCONNECTED");
                    assertThat(down.failedCompletions()).as("the receives the disconnect flushed")
                            .anySatisfy(f -> assertThat(f).endsWith("RECV WR_FLUSH_ERR"));
                    assertThat(health(peerSide, "peer-echo").getDetails().get("lastError")).isNotNull();

                    a.echoListener().run(listenerSide -> {
                        assertThat(peer.awaitConnected(WAIT)).as("reconnected: %s", peer.lastError()).isTrue();
                        assertThat(peer.request(new byte[] { 8 }, WAIT)).containsExactly(8);
                    });
                    assertThat(events).filteredOn(RdmaPeerConnectedEvent.class::isInstance).hasSize(2);
                });
    }

    @Test
    void aHeartbeatFindsACutLinkReportsTheFailedWorkRequestsAndThePeerReconnectsOnceTheLinkIsBack() {
        List<RdmaConnectionEvent> events = new CopyOnWriteArrayList<>();
        // Only the peer's heartbeat: the listener's would find the cut first (the test below).
        a.echoListener().withPropertyValues("rdma.verbs.connections.listeners.echo.heartbeat-interval=0")
                .run(listenerSide -> {
                    RdmaListener listener = listenerSide.getBean(RdmaListener.class);
                    b.echoPeer(a).withBean(ApplicationListener.class,
                            () -> (ApplicationListener<RdmaConnectionEvent>) events::add).run(peerSide -> {
                                RdmaPeer peer = peer(peerSide);
                                assertThat(peer.awaitConnected(WAIT)).isTrue();

                                a.provider().setPortState(a.device(), 1, PortState.DOWN);

                                RdmaPeerDownEvent down = await().atMost(WAIT).until(() -> events.stream()
                                        .filter(RdmaPeerDownEvent.class::isInstance)
                                        .map(RdmaPeerDownEvent.class::cast).findFirst().orElse(null), e -> e != null);
                                assertThat(down.reason()).contains("a work request completed in error");
                                assertThat(down.failedCompletions()).anySatisfy(
                                        f -> assertThat(f).endsWith("SEND RETRY_EXC_ERR"));
                                await().atMost(WAIT).until(() -> listener.sessions().isEmpty());

                                a.provider().setPortState(a.device(), 1, PortState.ACTIVE);

                                assertThat(peer.awaitConnected(WAIT)).as("reconnected: %s", peer.lastError())
                                        .isTrue();
                                assertThat(peer.request(new byte[] { 9 }, WAIT)).containsExactly(9);
                            });
                });
    }

    @Test
    void aListenersHeartbeatReleasesAConnectionWhosePeerVanishedWithTheLink() {
        a.echoListener().withPropertyValues("rdma.verbs.connections.listeners.echo.heartbeat-interval=200ms")
                .run(listenerSide -> {
                    RdmaListener listener = listenerSide.getBean(RdmaListener.class);
                    b.echoPeer(a).withPropertyValues("rdma.verbs.connections.peers.echo.heartbeat-interval=0")
                            .run(peerSide -> {
                                assertThat(peer(peerSide).awaitConnected(WAIT)).isTrue();
                                // The accept's session is registered just after the peer saw ESTABLISHED.
                                await().atMost(WAIT).until(() -> listener.sessions().size() == 1);

                                b.provider().setPortState(b.device(), 1, PortState.DOWN);

                                await().atMost(WAIT).until(() -> listener.sessions().isEmpty());
                                assertThat(health(listenerSide, "listener-echo").getDetails())
                                        .containsEntry("openConnections", 0);
                            });
                });
    }

    @Test
    void theVerbsEndpointListsTheListenerAndTheConnectionsWithTheirResources() {
        a.echoListener().withPropertyValues("management.endpoints.web.exposure.include=verbs").run(listenerSide -> {
            b.echoPeer(a).withPropertyValues("management.endpoints.web.exposure.include=verbs").run(peerSide -> {
                assertThat(peer(peerSide).awaitConnected(WAIT)).isTrue();
                await().atMost(WAIT).until(() -> listenerSide.getBean(RdmaListener.class).sessions().size() == 1);

                List<ConnectionDescriptor> listed = listenerSide.getBean(VerbsEndpoint.class).graph().connections();

                assertThat(listed).extracting(ConnectionDescriptor::role).containsExactly("listener", "connection");
                ConnectionDescriptor accepted = listed.get(1);
                assertThat(accepted.state()).isEqualTo("CONNECTED");
                assertThat(accepted.peerAddress()).startsWith("[" + b.address() + "]:");
                assertThat(accepted.resources()).extracting(r -> r.kind())
                        .contains(ResourceKind.CM_ID, ResourceKind.PROTECTION_DOMAIN, ResourceKind.COMPLETION_QUEUE,
                                ResourceKind.QUEUE_PAIR, ResourceKind.MEMORY_REGION);
                assertThat(accepted.stuckReferences()).as("a live connection must be disconnected first")
                        .isNotEmpty();
                assertThat(peerSide.getBean(VerbsEndpoint.class).graph().connections())
                        .singleElement().satisfies(c -> assertThat(c.role()).isEqualTo("connection"));
            });
        });
    }

    @Test
    void aListenerPublishesEachConnectionItAccepts() {
        List<RdmaConnectionEvent> events = new CopyOnWriteArrayList<>();
        a.echoListener().withBean(ApplicationListener.class,
                () -> (ApplicationListener<RdmaConnectionEvent>) events::add).run(listenerSide -> {
                    b.echoPeer(a).run(peerSide -> assertThat(peer(peerSide).awaitConnected(WAIT)).isTrue());
                    assertThat(events).filteredOn(RdmaConnectionAcceptedEvent.class::isInstance).singleElement()
                            .satisfies(e -> assertThat(e.name()).isEqualTo("echo"));
                });
    }

    @Test
    void theCircuitBreakerOpensAfterRepeatedFailedAttempts() {
        b.echoPeer(a).withPropertyValues("rdma.verbs.connections.peers.echo.circuit-breaker.sliding-window-size=3",
                "rdma.verbs.connections.peers.echo.circuit-breaker.wait-duration-in-open-state=1m").run(peerSide -> {
                    RdmaPeer peer = peer(peerSide);
                    await().atMost(WAIT).until(() -> peer.circuitBreakerState().orElse("").equals("OPEN"));
                    int attempts = peer.attempts();
                    Thread.sleep(300);
                    assertThat(peer.attempts()).as("no attempt reaches the CM while the breaker is open")
                            .isEqualTo(attempts);
                    assertThat(health(peerSide, "peer-echo").getDetails()).containsEntry("breaker", "OPEN");
                    assertThat(peer.lastError()).contains("OPEN");
                });
    }

    @Test
    void thePeersCircuitBreakerStateIsAMeterNamedAfterThePeer() {
        b.echoPeer(a).run(peerSide -> {
            assertThat(peerSide).hasNotFailed();
            MeterRegistry meters = peerSide.getBean(MeterRegistry.class);
            assertThat(meters.find("resilience4j.circuitbreaker.state").tag("name", "rdma-peer-echo")
                    .tag("state", "closed").gauge()).as("the peer's breaker, closed").isNotNull()
                    .satisfies(closed -> assertThat(closed.value()).isEqualTo(1));
        });
    }

    @Test
    void shutdownDisconnectsBeforeTheVerbsTeardownAndLeavesNothingOnEitherHost() {
        ClosedResources closed = new ClosedResources();
        a.echoListener().run(listenerSide -> {
            RdmaListener listener = listenerSide.getBean(RdmaListener.class);
            b.echoPeer(a).withBean(ClosedResources.class, () -> closed).run(peerSide -> {
                RdmaPeer peer = peer(peerSide);
                assertThat(peer.awaitConnected(WAIT)).isTrue();
                Verbs verbs = peerSide.getBean(Verbs.class);
                assertThat(verbs.resources()).isNotEmpty();
                VerbsTeardown teardown = peerSide.getBean(VerbsTeardown.class);

                peerSide.close();

                assertThat(peer.state()).isEqualTo(PeerState.STOPPED);
                assertThat(verbs.resources()).isEmpty();
                // The connection first, dependents before what they depend on, then the completion loop's
                // channel and the event channel...
                assertThat(closed.names().stream().filter(n -> !n.startsWith("cm-event#")).toList())
                        .containsExactly("cm/conn-1/qp", "cm/conn-1", "cm/conn-1/mr", "cm/conn-1/pd", "cm/conn-1/cq",
                                "cm/completions-" + b.device() + "-0", "cm/events", b.device() + "@rdma_cm");
                // ...all before the verbs teardown, which found only librdmacm's context left to forget.
                assertThat(teardown.report().orElseThrow().closed())
                        .extracting(ResourceRef::name).containsExactly(b.device() + "@rdma_cm");
                assertThat(b.provider().resourceCounts(b.device()).objects()).isZero();
            });
            await().atMost(WAIT).until(() -> listener.sessions().isEmpty());
            Verbs listenerVerbs = listenerSide.getBean(Verbs.class);
            listenerSide.close();
            assertThat(listenerVerbs.resources()).isEmpty();
            assertThat(a.provider().resourceCounts(a.device()).objects()).isZero();
        });
    }

    @Test
    void shutdownWhileAPeerKeepsTryingAHostThatNeverAnswersIsBounded() {
        b.runner().withPropertyValues("rdma.verbs.connections.peers.echo.address=fe80::dead:beef",
                "rdma.verbs.connections.peers.echo.resolve-timeout=30s",
                "rdma.verbs.connections.peers.echo.reconnect.initial-backoff=10ms",
                "spring.lifecycle.timeout-per-shutdown-phase=3s").run(peerSide -> {
                    RdmaPeer peer = peer(peerSide);
                    await().atMost(WAIT).until(() -> peer.state() == PeerState.CONNECTING);
                    long started = System.nanoTime();

                    peerSide.close();

                    Duration took = Duration.ofNanos(System.nanoTime() - started);
                    assertThat(took).as("shutdown of a context whose peer resolves for 30 s")
                            .isLessThan(Duration.ofSeconds(5));
                    assertThat(peer.state()).isEqualTo(PeerState.STOPPED);
                });
    }

    private static RdmaPeer peer(ConfigurableApplicationContext context) {
        return context.getBean("echoRdmaPeer", RdmaPeer.class);
    }

    private static Health health(ConfigurableApplicationContext context, String entry) {
        RdmaConnectionsHealthContributor contributor = context.getBean(RdmaConnectionsHealthContributor.class);
        return ((HealthIndicator) contributor.getContributor(entry)).health(true);
    }

    private static Status aggregate(ConfigurableApplicationContext context) {
        RdmaConnectionsHealthContributor contributor = context.getBean(RdmaConnectionsHealthContributor.class);
        return StatusAggregator.getDefault().getAggregateStatus(contributor.stream()
                .map(e -> ((HealthIndicator) e.contributor()).health(false).getStatus()).toList()
                .toArray(Status[]::new));
    }

    private static long crc(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }
}
