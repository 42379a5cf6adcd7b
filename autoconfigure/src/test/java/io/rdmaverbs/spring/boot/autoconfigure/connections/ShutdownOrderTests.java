package io.rdmaverbs.spring.boot.autoconfigure.connections;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.rdmaverbs.spring.boot.autoconfigure.connections.Hosts.Host;
import io.rdmaverbs.spring.boot.connections.PeerState;
import io.rdmaverbs.spring.boot.connections.RdmaConnectionEvent;
import io.rdmaverbs.spring.boot.connections.RdmaListener;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.spring.boot.connections.RdmaPeerDownEvent;
import io.rdmaverbs.verbs.error.Errno;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The connections' shutdown in dependency order, read from its log: stop listening, disconnect every
 * connection, wait, flush, release, close the event channel, all before the verbs teardown and within
 * {@code rdma.verbs.connections.disconnect-timeout}.
 */
@ExtendWith(OutputCaptureExtension.class)
class ShutdownOrderTests {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Pattern RELEASED = Pattern.compile("released: (\\d+) flushed work request\\(s\\); (.*)");

    private final Hosts hosts = new Hosts();
    private final Host a = hosts.host("rxe0");
    private final Host b = hosts.host("rxe1");

    @Test
    void theStopGoesPhaseByPhaseForEveryConnectionAndTheOtherSideSeesDisconnected(CapturedOutput output) {
        List<RdmaConnectionEvent> remoteEvents = new CopyOnWriteArrayList<>();
        // Host a: the listener 'echo' and a peer 'echo' to it, in one context; host b: a second peer to it.
        a.echoListener().withPropertyValues(peerTo(a)).run(both -> b.echoPeer(a)
                .withBean(ApplicationListener.class,
                        () -> (ApplicationListener<RdmaConnectionEvent>) remoteEvents::add)
                .run(remote -> {
                    RdmaPeer local = peer(both);
                    assertThat(local.awaitConnected(WAIT)).as("local peer: %s", local.lastError()).isTrue();
                    assertThat(peer(remote).awaitConnected(WAIT)).as("remote peer").isTrue();
                    RdmaListener listener = both.getBean(RdmaListener.class);
                    await().atMost(WAIT).until(() -> listener.sessions().size() == 2);
                    int from = output.getOut().length();

                    both.close();

                    List<String> lines = connectionLines(output.getOut().substring(from));
                    int listening = indexOf(lines, "RDMA listener 'echo' stopped listening on [" + a.address()
                            + "]:7471");
                    List<Integer> disconnected = indicesOf(lines, "disconnected from", "disconnected: ");
                    List<Integer> released = indicesOf(lines, " released: ");
                    int channel = indexOf(lines, "RDMA connections: connection manager event channel closed "
                            + "(rdma_destroy_event_channel)");
                    int summary = indexOf(lines, "RDMA connections stopped in ");
                    int teardown = indexOf(lines, "RDMA verbs teardown");
                    assertThat(disconnected).as("the peer's connection and both accepted ones:%n%s", lines)
                            .hasSize(3);
                    assertThat(released).as("%s", lines).hasSize(3);
                    assertThat(listening).as("%s", lines).isLessThan(disconnected.getFirst());
                    assertThat(disconnected.getLast()).as("every disconnect before any release:%n%s", lines)
                            .isLessThan(released.getFirst());
                    assertThat(released.getLast()).isLessThan(channel);
                    assertThat(channel).isLessThan(summary);
                    assertThat(summary).isLessThan(teardown);
                    // The local peer and the connection it made to the local listener are both ends of one link
                    // in one connection manager: whichever is disconnected first, the other hears it from it.
                    assertThat(lines.get(disconnected.getFirst())).as("the peer's connection")
                            .startsWith("RDMA peer 'echo' disconnected from [" + a.address() + "]:7471: ")
                            .containsPattern("DISCONNECTED (after \\d+ ms|by the other side)$");
                    assertThat(disconnected.subList(1, 3)).map(lines::get).allSatisfy(l -> assertThat(l)
                            .startsWith("RDMA listener 'echo' connection from [")
                            .containsPattern("disconnected: DISCONNECTED (after \\d+ ms|by the other side)$"));
                    assertThat(disconnected).map(lines::get).as("the remote peer's connection, disconnected here")
                            .anySatisfy(l -> assertThat(l).startsWith("RDMA listener 'echo' connection from ["
                                    + b.address() + "]").containsPattern("DISCONNECTED after \\d+ ms$"));
                    assertThat(released).map(lines::get).allSatisfy(l -> assertThat(l)
                            .containsPattern("rdma_destroy_qp qp '[^']+' \\(#\\d+ on rxe0\\), "
                                    + "rdma_destroy_id cm-id '[^']+' \\(#\\d+ on rxe0\\), ibv_dereg_mr mr ")
                            .contains("ibv_dealloc_pd pd", "ibv_destroy_cq cq").doesNotContain("left: "));
                    // The CQs were on the manager's completion loops: their channels go after every connection.
                    int loops = indexOf(lines, "RDMA connections: completion loops stopped, ibv_destroy_comp_channel "
                            + "channel 'cm/completions-rxe0-0'");
                    assertThat(loops).as("%s", lines).isGreaterThan(released.getLast()).isLessThan(channel);
                    assertThat(lines.get(summary)).contains("before the verbs teardown: peer 'echo', "
                            + "listener 'echo' (2 connection(s) disconnected); connection manager event channel closed");

                    RdmaPeerDownEvent down = await().atMost(WAIT).until(() -> remoteEvents.stream()
                            .filter(RdmaPeerDownEvent.class::isInstance).map(RdmaPeerDownEvent.class::cast)
                            .findFirst().orElse(null), e -> e != null);
                    assertThat(down.reason()).as("the remote peer saw the shutdown's disconnect")
                            .contains("RDMA_CM_EVENT_DISCONNECTED");
                }));
    }

    @Test
    void theReleaseLineCountsTheWorkRequestsTheDisconnectFlushed(CapturedOutput output) {
        a.echoListener().withPropertyValues("rdma.verbs.connections.listeners.echo.connection.receive-buffers=5",
                "rdma.verbs.connections.listeners.echo.heartbeat-interval=0").run(listenerSide -> b.echoPeer(a)
                        .withPropertyValues("rdma.verbs.connections.peers.echo.connection.receive-buffers=3",
                                "rdma.verbs.connections.peers.echo.heartbeat-interval=0")
                        .run(peerSide -> {
                            assertThat(peer(peerSide).awaitConnected(WAIT)).isTrue();
                            RdmaListener listener = listenerSide.getBean(RdmaListener.class);
                            await().atMost(WAIT).until(() -> listener.sessions().size() == 1);
                            int from = output.getOut().length();

                            listenerSide.close();

                            String released = indexedLine(output.getOut().substring(from), " released: ");
                            Matcher m = RELEASED.matcher(released);
                            assertThat(m.find()).as(released).isTrue();
                            assertThat(m.group(1)).as("each posted receive came back WR_FLUSH_ERR (ibv_poll_cq(3))")
                                    .isEqualTo("5");
                        }));
    }

    @Test
    void aConnectionWhoseOtherSideNeverAnswersIsReleasedOnceTheDisconnectTimeoutIsOver(CapturedOutput output) {
        a.echoListener().run(listenerSide -> b.echoPeer(a)
                .withPropertyValues("rdma.verbs.connections.disconnect-timeout=500ms",
                        "rdma.verbs.connections.peers.echo.heartbeat-interval=0")
                .run(peerSide -> {
                    RdmaPeer peer = peer(peerSide);
                    assertThat(peer.awaitConnected(WAIT)).isTrue();
                    // No DREQ leaves, so no DISCONNECTED comes back (the simulated wire answers even a cut link).
                    b.provider().faults().failCall("rdma_disconnect", 1, Errno.EINVAL);
                    int from = output.getOut().length();
                    long started = System.nanoTime();

                    peerSide.close();

                    Duration took = Duration.ofNanos(System.nanoTime() - started);
                    assertThat(took).as("a 500 ms disconnect-timeout").isBetween(Duration.ofMillis(500),
                            Duration.ofMillis(1500));
                    List<String> lines = connectionLines(output.getOut().substring(from));
                    assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("RDMA peer 'echo' disconnected from ["
                            + a.address() + "]:7471: rdma_disconnect failed (").contains("EINVAL")
                            .endsWith("), no RDMA_CM_EVENT_DISCONNECTED within 500 ms"));
                    assertThat(lines).anySatisfy(l -> assertThat(l).contains("RDMA peer 'echo' connection to [",
                            " released: ", "rdma_destroy_qp qp"));
                    assertThat(b.provider().resourceCounts(b.device()).objects()).isZero();
                }));
    }

    @Test
    void aPeerInTheMiddleOfAnAttemptToAHostThatNeverAnswersStopsWithinTheDisconnectTimeout(CapturedOutput output) {
        b.runner().withPropertyValues("rdma.verbs.connections.peers.echo.address=fe80::dead:beef",
                "rdma.verbs.connections.peers.echo.resolve-timeout=30s",
                "rdma.verbs.connections.peers.echo.reconnect.initial-backoff=10ms",
                "rdma.verbs.connections.disconnect-timeout=500ms").run(peerSide -> {
                    RdmaPeer peer = peer(peerSide);
                    await().atMost(WAIT).until(() -> peer.state() == PeerState.CONNECTING);
                    int from = output.getOut().length();
                    long started = System.nanoTime();

                    peerSide.close();

                    Duration took = Duration.ofNanos(System.nanoTime() - started);
                    assertThat(took).as("a peer resolving for 30 s, a 500 ms disconnect-timeout")
                            .isLessThan(Duration.ofMillis(1500));
                    assertThat(peer.state()).isEqualTo(PeerState.STOPPED);
                    assertThat(connectionLines(output.getOut().substring(from))).first().asString()
                            .startsWith("RDMA peer 'echo' stopped connecting to [fe80:0:0:0:0:0:dead:beef]:7471: "
                                    + "not connected (CONNECTING, 1 attempt(s)");
                });
    }

    @Test
    void aListenerWithoutConnectionsSaysSoBetweenItsStopAndTheEventChannel(CapturedOutput output) {
        a.echoListener().run(listenerSide -> {
            int from = output.getOut().length();

            listenerSide.close();

            assertThat(connectionLines(output.getOut().substring(from))).startsWith(
                    "RDMA listener 'echo' stopped listening on [" + a.address() + "]:7471",
                    "RDMA listener 'echo' had no connection to disconnect",
                    "RDMA connections: connection manager event channel closed (rdma_destroy_event_channel)");
        });
    }

    private static String[] peerTo(Host listener) {
        return new String[] { "rdma.verbs.connections.peers.echo.address=" + listener.address(),
            "rdma.verbs.connections.peers.echo.resolve-timeout=500ms",
            "rdma.verbs.connections.peers.echo.connect-timeout=1s",
            "rdma.verbs.connections.peers.echo.reconnect.initial-backoff=20ms" };
    }

    /** The log's messages of the connections and the teardown, without the logger's prefix. */
    private static List<String> connectionLines(String log) {
        return log.lines().filter(l -> l.contains("RDMA ")).map(l -> l.substring(l.indexOf("RDMA "))).toList();
    }

    private static String indexedLine(String log, String text) {
        List<String> lines = connectionLines(log);
        return lines.get(indexOf(lines, text));
    }

    private static int indexOf(List<String> lines, String text) {
        List<Integer> found = indicesOf(lines, text);
        assertThat(found).as("a line with '%s' in%n%s", text, String.join("\n", lines)).isNotEmpty();
        return found.getFirst();
    }

    private static List<Integer> indicesOf(List<String> lines, String... anyOf) {
        return java.util.stream.IntStream.range(0, lines.size())
                .filter(i -> java.util.Arrays.stream(anyOf).anyMatch(lines.get(i)::contains)).boxed().toList();
    }

    private static RdmaPeer peer(ConfigurableApplicationContext context) {
        return context.getBean("echoRdmaPeer", RdmaPeer.class);
    }
}
